"""SMTP pipelining (RFC 2920; workers/providers/smtp.py) against the real SMTP stand-in, which
counts the client's turns: a message over an open connection is 4 without pipelining (MAIL,
RCPT, DATA, the content, each after an answer), 2 with it. Refusals mean what they meant
without it, and leave the kept connection usable."""

from __future__ import annotations

import socket
import threading

import pytest

from tests.support.smtp import SmtpServer
from workers.channels import CHANNELS
from workers.channels.email import EmailChannel
from workers.errors import PermanentError, TransientError
from workers.providers import Provider
from workers.providers.connections import connections_close_all


@pytest.fixture
def sinks():
    started: list[SmtpServer] = []

    def make(**kwargs) -> SmtpServer:
        server = SmtpServer(**kwargs)
        server.start()
        started.append(server)
        return server

    yield make
    connections_close_all()
    for server in started:
        server.stop()


SMTP = EmailChannel.backend_of("relay", "smtp")  # the `smtp` alias's backend: the pipelining one


def send(sink: SmtpServer, to: str, key: str, body: str = "Hello") -> dict:
    provider = Provider("relay", "email", SMTP, {"host": "127.0.0.1", "port": sink.port})
    rendered = {"to": to, "subject": "Hi", "body": body}
    return CHANNELS["email"].send(rendered, idempotency_key=key, provider=provider)


def turns_per_message(sink: SmtpServer, messages: int) -> float:
    send(sink, "ok-first@example.com", "t0:n")  # opens the connection: greeting, EHLO
    before = sink.turns
    for i in range(messages):
        send(sink, f"ok-{i}@example.com", f"t{i + 1}:n")
    assert len(sink.handler.received) == messages + 1 and sink.connections == 1
    return (sink.turns - before) / messages


def test_a_relay_that_offers_pipelining_gets_a_message_in_two_turns(sinks):
    assert turns_per_message(sinks(), 3) == 2


def test_without_the_offer_or_with_the_setting_off_a_message_takes_four(sinks, settings):
    assert turns_per_message(sinks(pipelining=False), 3) == 4
    connections_close_all()
    settings.NOTIFLOW_EMAIL_SMTP_PIPELINING = False
    assert turns_per_message(sinks(), 3) == 4


def test_pipelined_content_arrives_whole_with_its_leading_dots(sinks):
    sink = sinks()
    body = ".starts with a dot\n..two\nlast line without a newline."
    send(sink, "ok-dots@example.com", "t1:n", body=body)
    (received,) = sink.handler.received
    assert received.body.replace("\r\n", "\n").rstrip("\n") == body
    assert received.to == ["ok-dots@example.com"]


def test_a_refused_recipient_is_permanent_and_a_deferred_one_transient(sinks):
    sink = sinks()
    with pytest.raises(
        PermanentError, match=r"SMTP recipient refused: rcpt550-a@example\.com: 550"
    ):
        send(sink, "rcpt550-a@example.com", "t1:n")
    with pytest.raises(TransientError, match=r"SMTP recipient deferred: rcpt451-a@example\.com"):
        send(sink, "rcpt451-a@example.com", "t2:n")
    send(sink, "ok-after@example.com", "t3:n")
    # One of two recipients refused: the message goes to the other, as smtplib's sendmail does.
    send(sink, "rcpt550-b@example.com, ok-other@example.com", "t4:n")
    assert [r.to for r in sink.handler.received] == [
        ["ok-after@example.com"],
        ["ok-other@example.com"],
    ]
    # Each refusal was answered in full and reset: the kept connection carried every message.
    assert sink.connections == 1


def test_a_refused_sender_is_classified_by_its_code(sinks, settings):
    sink = sinks()
    settings.DEFAULT_FROM_EMAIL = "refused@example.com"
    with pytest.raises(PermanentError, match="SMTP 553"):
        send(sink, "ok-a@example.com", "t1:n")
    settings.DEFAULT_FROM_EMAIL = "deferred@example.com"
    with pytest.raises(TransientError, match="SMTP 451"):
        send(sink, "ok-a@example.com", "t2:n")
    settings.DEFAULT_FROM_EMAIL = "notiflow@example.com"
    send(sink, "ok-a@example.com", "t3:n")
    assert len(sink.handler.received) == 1 and sink.connections == 1


def test_a_421_at_rcpt_is_transient_and_the_next_message_opens_a_connection(sinks):
    sink = sinks()
    with pytest.raises(TransientError, match="421"):
        send(sink, "rcpt421-a@example.com", "t1:n")
    send(sink, "ok-b@example.com", "t2:n")
    assert [r.to for r in sink.handler.received] == [["ok-b@example.com"]]
    assert sink.connections == 2


def test_a_data_accepted_with_no_recipient_is_ended_with_a_lone_dot():
    """RFC 2920 3.1: a relay may accept DATA though it refused every RCPT; the client then sends
    no content, only the dot. A scripted relay (which answers each group only when it has read
    it whole) records every line it got."""
    lines: list[bytes] = []
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    script = {
        b"EHLO": b"250-relay\r\n250 PIPELINING\r\n",
        b"DATA": b"250 sender ok\r\n550 5.1.1 no such user\r\n354 go ahead\r\n",
        b".": b"554 5.5.1 no valid recipients\r\n",
        b"RSET": b"250 reset\r\n",
    }

    def relay() -> None:
        connection, _ = listener.accept()
        with connection, connection.makefile("rb") as incoming:
            connection.sendall(b"220 relay ready\r\n")
            for line in incoming:
                lines.append(line.rstrip(b"\r\n"))
                answer = script.get(lines[-1].split(b" ")[0].upper())
                if answer:
                    connection.sendall(answer)
                if lines[-1].upper() == b"QUIT":
                    connection.sendall(b"221 bye\r\n")
                    return

    thread = threading.Thread(target=relay, daemon=True)
    thread.start()
    provider = Provider("relay", "email", SMTP, {"host": "127.0.0.1", "port": port})
    rendered = {"to": "nobody@example.com", "subject": "Hi", "body": "Hello"}
    try:
        with pytest.raises(PermanentError, match=r"nobody@example\.com: 550"):
            CHANNELS["email"].send(rendered, idempotency_key="t1:n", provider=provider)
    finally:
        connections_close_all()
        listener.close()
    thread.join(timeout=5)
    after_data = lines[lines.index(b"DATA") + 1 :]
    assert [line.upper() for line in after_data[:2]] == [b".", b"RSET"], lines
