"""A real SMTP server on loopback (aiosmtpd) whose answer depends on the recipient.

ok-*@...        accepted (any address not matching a rule below is accepted too)
defer2-*@...    451 for the first two deliveries of a Message-ID, then accepted
defer-*@...     451 always
reject-*@...    550 always
reject1-*@...   550 for the first delivery of a Message-ID, then accepted (a failed run that an
                operator's retry can then complete)
hang-*@...      the first delivery of a Message-ID hangs (up to 20 s) and is then deferred
drop-*@...      the first delivery of a Message-ID: the server closes the connection instead of
                answering (a connection broken mid-message), then accepted
slow-*@...      accepted after 1.5 s (a step that is still running when its worker is stopped)
rcpt550-*@...   refused at RCPT (550), rcpt451-*@... deferred at RCPT (451)
rcpt421-*@...   at RCPT: 421 and the connection closed (a relay shutting down)

A sender whose local part is `refused` is refused at MAIL (553), `deferred` deferred (451).

It offers PIPELINING (RFC 2920) in its EHLO reply unless made with `pipelining=False`, as most
relays do. `turns` counts the times the client wrote after the server had answered: a message
over an open connection is 4 turns (MAIL, RCPT, DATA, the content) without pipelining, 2 with.

`connections` counts the connections it accepted (a STARTTLS upgrade is not a new one), `open`
those still open, `drop_connections()` closes every open one from the server's side (a relay
that restarted).

A server made with `refuse_with` (e.g. "451 4.3.0 down") gives that answer to every other
address: a provider that is down (tests/workers/test_providers_e2e.py).
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass
from email.message import Message

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP


@dataclass
class Received:
    to: list[str]
    message_id: str
    subject: str
    message: Message

    @property
    def body(self) -> str:
        part = self.message.get_body(("plain",)) if hasattr(self.message, "get_body") else None
        payload = (part or self.message).get_payload(decode=True)
        return payload.decode() if isinstance(payload, bytes) else str(payload)


class RuleHandler:
    def __init__(self, refuse_with: str | None = None, pipelining: bool = True) -> None:
        self.refuse_with = refuse_with
        self.pipelining = pipelining
        self.lock = threading.Lock()
        self.received: list[Received] = []
        self.deliveries: Counter[str] = Counter()

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname  # what aiosmtpd leaves to this hook
        if self.pipelining:
            responses.insert(1, "250-PIPELINING")
        return responses

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        local = address.split("@")[0]
        if local == "refused":
            return "553 5.7.1 sender refused"
        if local == "deferred":
            return "451 4.3.2 sender deferred"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        local = address.split("@")[0]
        if local.startswith("rcpt550-"):
            return "550 5.1.1 no such user"
        if local.startswith("rcpt451-"):
            return "451 4.2.0 mailbox busy"
        if local.startswith("rcpt421-"):
            # Closed on the loop's next turn, after the answer below is written.
            asyncio.get_running_loop().call_soon(server.transport.close)
            return "421 4.3.2 shutting down"
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        message_id = str(parsed.get("Message-ID", "")).strip()
        local = envelope.rcpt_tos[0].split("@")[0]
        with self.lock:  # counted on arrival, before any answer: tests wait on this
            self.deliveries[message_id] += 1
            attempt = self.deliveries[message_id]
        if local.startswith("reject-") or (local.startswith("reject1-") and attempt == 1):
            return "550 5.1.1 mailbox unavailable"
        if local.startswith("defer2-") and attempt <= 2:
            return "451 4.3.0 try again later"
        if local.startswith("defer-"):
            return "451 4.3.0 try again later"
        if local.startswith("drop-") and attempt == 1:
            server.transport.close()
            return "451 4.3.0 dropped"  # never reaches the client
        if self.refuse_with:
            return self.refuse_with
        if local.startswith("slow-"):
            await asyncio.sleep(1.5)  # under the stack's EMAIL_TIMEOUT (2 s)
        if local.startswith("hang-") and attempt == 1:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            return "451 4.3.0 hung"
        with self.lock:
            self.received.append(
                Received(
                    to=list(envelope.rcpt_tos),
                    message_id=message_id,
                    subject=str(parsed.get("Subject", "")),
                    message=parsed,
                )
            )
        return "250 OK"

    def to(self, address: str) -> list[Received]:
        with self.lock:
            return [r for r in self.received if address in r.to]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class _CountingSMTP(SMTP):
    def __init__(self, sink: SmtpServer, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.sink = sink
        self._answered = False

    def data_received(self, data: bytes) -> None:
        if self._answered:  # the client writes again after an answer: a turn
            self._answered = False
            with self.sink.handler.lock:
                self.sink.turns += 1
        super().data_received(data)

    async def push(self, status) -> None:
        self._answered = True
        await super().push(status)

    def connection_made(self, transport) -> None:
        if self.transport is None:  # not the STARTTLS upgrade of one already counted
            with self.sink.handler.lock:
                self.sink.connections += 1
                self.sink.transports.add(transport)
        super().connection_made(transport)

    def connection_lost(self, error) -> None:
        with self.sink.handler.lock:
            self.sink.transports.discard(self._original_transport or self.transport)
        super().connection_lost(error)


class _CountingController(Controller):
    def __init__(self, sink: SmtpServer, *args, **kwargs) -> None:
        self.sink = sink
        super().__init__(*args, **kwargs)

    def factory(self):
        return _CountingSMTP(self.sink, self.handler, **self.SMTP_kwargs)


class SmtpServer:
    def __init__(
        self,
        refuse_with: str | None = None,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        pipelining: bool = True,
    ) -> None:
        self.handler = RuleHandler(refuse_with, pipelining)
        self.connections = 0
        self.turns = 0
        self.transports: set = set()
        self.controller = _CountingController(
            self, self.handler, hostname=host, port=port or free_port()
        )

    @property
    def open(self) -> int:
        with self.handler.lock:
            return len(self.transports)

    def drop_connections(self) -> None:
        """Close every open connection from the server's side, and wait until they are gone."""
        with self.handler.lock:
            transports = list(self.transports)
        for transport in transports:
            self.controller.loop.call_soon_threadsafe(transport.close)
        deadline = time.monotonic() + 5
        while self.open and time.monotonic() < deadline:
            time.sleep(0.01)

    def start(self) -> None:
        self.controller.start()
        # aiosmtpd's start connects once to see the server answer: not a client's connection.
        deadline = time.monotonic() + 5
        while self.open and time.monotonic() < deadline:
            time.sleep(0.01)
        with self.handler.lock:
            self.connections = 0

    @property
    def port(self) -> int:
        return int(self.controller.port)

    def stop(self) -> None:
        self.controller.stop()
