"""Email through Django's email framework, with a deterministic Message-ID (docs/design.md, rule 6)."""

from __future__ import annotations

import smtplib
from email.utils import formataddr, getaddresses
from typing import Any

from django.conf import settings
from django.core.mail import BadHeaderError, EmailMultiAlternatives, get_connection
from django.utils import timezone

from workers.errors import PermanentError, TransientError
from workflows.semantics import Rendered


def message_id_for(idempotency_key: str) -> str:
    trigger_id, _, node_id = idempotency_key.partition(":")
    return f"<{trigger_id}.{node_id}@{settings.NOTIFLOW_MESSAGE_ID_DOMAIN}>"


def _classify_smtp(exc: Exception) -> Exception:
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in exc.recipients.values()]
        detail = "; ".join(
            f"{addr}: {code} {msg!r}" for addr, (code, msg) in exc.recipients.items()
        )
        if codes and all(400 <= code < 500 for code in codes):
            return TransientError(f"SMTP recipient deferred: {detail}")
        return PermanentError(f"SMTP recipient refused: {detail}")
    if isinstance(exc, smtplib.SMTPResponseException):
        message = (
            exc.smtp_error.decode(errors="replace")
            if isinstance(exc.smtp_error, bytes)
            else str(exc.smtp_error)
        )
        text = f"SMTP {exc.smtp_code}: {message}"
        if 500 <= exc.smtp_code < 600:
            return PermanentError(text)
        return TransientError(text)
    return TransientError(f"email transport: {type(exc).__name__}: {exc}")


class EmailChannel:
    name = "email"

    def send(self, rendered: Rendered, *, idempotency_key: str) -> dict[str, Any]:
        message_id = message_id_for(idempotency_key)
        # `to` is checked and normalised by the run semantics (workflows.semantics).
        recipients = [formataddr(pair) for pair in getaddresses([rendered["to"]])]
        message = EmailMultiAlternatives(
            subject=rendered.get("subject", ""),
            body=rendered.get("body", ""),
            to=recipients,
            headers={"Message-ID": message_id, "X-Notiflow-Idempotency-Key": idempotency_key},
            connection=get_connection(fail_silently=False),
        )
        if rendered.get("html"):
            message.attach_alternative(rendered["html"], "text/html")
        try:
            message.send()
        except (BadHeaderError, ValueError) as exc:
            # Refused by Django before any connection (the semantics' checks should have
            # caught it first): the same message would be refused again.
            raise PermanentError(f"email not sendable: {exc}") from exc
        except (smtplib.SMTPException, OSError) as exc:
            raise _classify_smtp(exc) from exc
        return {
            "message_id": message_id,
            "to": rendered["to"],
            "sent_at": timezone.now().isoformat(),
        }
