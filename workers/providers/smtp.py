"""Django's SMTP email backend, pipelined where the relay offers it (RFC 2920).

smtplib sends a message in four round trips over an open connection: MAIL, RCPT, DATA, then the
content, each waiting for its reply. A relay that lists PIPELINING in its EHLO reply (Postfix,
Exim, Amazon SES, SendGrid and most hosted relays do) accepts MAIL, every RCPT and DATA in one
write; the client then reads their replies in order and sends the content: two round trips,
which over a link of 20 ms is 40 ms less per message for the worker thread that waits on it
(docs/design/channels.md, "SMTP pipelining").

What the relay answers means what it means without pipelining, checked as RFC 2920 section 3.1
says: every reply of the group is read, a refused sender or no accepted recipient ends the
transaction (a DATA the relay accepted anyway is closed with a lone dot, so nothing is sent),
and smtplib's own exceptions are raised (SMTPSenderRefused, SMTPRecipientsRefused,
SMTPDataError), so the channel classifies them as before (workers/channels/email.py). A relay
that does not offer PIPELINING, `NOTIFLOW_EMAIL_SMTP_PIPELINING=false`, content given as text
rather than bytes, or SMTPUTF8 options take smtplib's own `sendmail`, unchanged.
"""

from __future__ import annotations

import re
import smtplib
from collections.abc import Callable, Sequence
from contextlib import suppress
from functools import partial
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.mail.backends.smtp import EmailBackend as DjangoSmtpBackend

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

# RFC 5321 4.5.2: a content line that starts with a dot gets another (smtplib's data() does it
# too, for the content it sends itself).
_LEADING_DOT = re.compile(rb"(?m)^\.")


class PipeliningSMTP(smtplib.SMTP):
    _group: list[str] | None = None

    def send(self, s: ReadableBuffer | str) -> None:
        if self._group is not None:  # a line putcmd checked, held for the group's one write
            self._group.append(str(s))
            return
        super().send(s)

    def _write_group(self, lines: Sequence[str]) -> None:
        self._group = []
        try:
            for line in lines:
                self.putcmd(line)  # refuses a CR or LF inside a line, as for any command
            held = "".join(self._group)
        finally:
            self._group = None
        self.send(held)

    def sendmail(  # type: ignore[override]
        self,
        from_addr: str,
        to_addrs: str | Sequence[str],
        msg: str | bytes,
        mail_options: Sequence[str] = (),
        rcpt_options: Sequence[str] = (),
    ) -> dict[str, tuple[int, bytes]]:
        self.ehlo_or_helo_if_needed()
        if (
            not settings.NOTIFLOW_EMAIL_SMTP_PIPELINING
            or not self.does_esmtp
            or not self.has_extn("pipelining")
            or not isinstance(msg, bytes)
            or any(option.lower() == "smtputf8" for option in mail_options)
        ):
            return super().sendmail(from_addr, to_addrs, msg, mail_options, rcpt_options)
        recipients = [to_addrs] if isinstance(to_addrs, str) else list(to_addrs)
        options = [f"size={len(msg)}"] if self.has_extn("size") else []
        mail_tail = "".join(f" {option}" for option in [*options, *mail_options])
        rcpt_tail = "".join(f" {option}" for option in rcpt_options)
        self._write_group(
            [
                f"MAIL FROM:{smtplib.quoteaddr(from_addr)}{mail_tail}",
                *(f"RCPT TO:{smtplib.quoteaddr(to)}{rcpt_tail}" for to in recipients),
                "DATA",
            ]
        )
        mail = self._reply(lambda code, text: smtplib.SMTPSenderRefused(code, text, from_addr))
        refused: dict[str, tuple[int, bytes]] = {}
        for to in recipients:
            code, text = self._reply(partial(_recipients_refused, refused, to))
            if code not in (250, 251):
                refused[to] = (code, text)
        data = self._reply(smtplib.SMTPDataError)
        if mail[0] != 250 or len(refused) == len(recipients):
            if data[0] == 354:  # accepted all the same: end it with no content (RFC 2920 3.1)
                self.send(b".\r\n")
                self._reply(smtplib.SMTPDataError)
            self._rset_quietly()
            if mail[0] != 250:
                raise smtplib.SMTPSenderRefused(mail[0], mail[1], from_addr)
            raise smtplib.SMTPRecipientsRefused(refused)
        if data[0] != 354:
            self._rset_quietly()
            raise smtplib.SMTPDataError(*data)
        content = _LEADING_DOT.sub(b"..", msg)
        if not content.endswith(b"\r\n"):
            content += b"\r\n"
        self.send(content + b".\r\n")
        code, text = self._reply(smtplib.SMTPDataError)
        if code != 250:
            self._rset_quietly()
            raise smtplib.SMTPDataError(code, text)
        return refused

    def _reply(self, closing: Callable[[int, bytes], Exception]) -> tuple[int, bytes]:
        """The next reply of the group; a 421 (the relay is closing) closes the connection and
        raises `closing`'s error, as smtplib does for a 421 at that command."""
        code, text = self.getreply()
        if code == 421:
            self.close()
            raise closing(code, text)
        return code, text

    def _rset_quietly(self) -> None:
        with suppress(smtplib.SMTPServerDisconnected):
            self.rset()


def _recipients_refused(
    refused: dict[str, tuple[int, bytes]], to: str, code: int, text: bytes
) -> Exception:
    return smtplib.SMTPRecipientsRefused({**refused, to: (code, text)})


class PipeliningSMTP_SSL(PipeliningSMTP, smtplib.SMTP_SSL):
    pass


class EmailBackend(DjangoSmtpBackend):
    """Django's SMTP backend whose connection pipelines a message where the relay offers it."""

    @property
    def connection_class(self) -> type[smtplib.SMTP]:
        return PipeliningSMTP_SSL if self.use_ssl else PipeliningSMTP
