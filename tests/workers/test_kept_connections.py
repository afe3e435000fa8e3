"""Email providers' connections kept open per worker thread (workers/providers/connections.py;
docs/design/channels.md, "Kept connections"), against the real SMTP stand-in, which counts the
connections it accepted."""

from __future__ import annotations

import threading
import time

import pytest

from tests.support.smtp import SmtpServer
from workers.channels import CHANNELS
from workers.channels.email import message_id_for
from workers.errors import TransientError
from workers.providers import Provider
from workers.providers.connections import connections_close_all, connections_close_idle

SMTP = "django.core.mail.backends.smtp.EmailBackend"


@pytest.fixture
def sink():
    server = SmtpServer()
    server.start()
    yield server
    connections_close_all()
    server.stop()


def provider(sink: SmtpServer) -> Provider:
    return Provider("relay", "email", SMTP, {"host": "127.0.0.1", "port": sink.port, "timeout": 5})


def send(sink: SmtpServer, to: str, key: str) -> dict:
    rendered = {"to": to, "subject": "Hi", "body": "Hello"}
    return CHANNELS["email"].send(rendered, idempotency_key=key, provider=provider(sink))


def wait_until(check, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def test_messages_share_one_connection_which_stays_open(sink):
    for i in range(5):
        send(sink, f"ok-{i}@example.com", f"t{i}:n")
    assert len(sink.handler.received) == 5
    assert sink.connections == 1 and sink.open == 1


def test_without_keeping_each_message_opens_and_closes_its_own(sink, settings):
    settings.NOTIFLOW_EMAIL_KEEP_CONNECTIONS = False
    for i in range(3):
        send(sink, f"ok-{i}@example.com", f"t{i}:n")
    assert len(sink.handler.received) == 3
    assert sink.connections == 3
    wait_until(lambda: sink.open == 0)


def test_a_connection_the_server_closed_while_idle_is_replaced_without_a_failure(sink):
    send(sink, "ok-1@example.com", "t1:n")
    sink.drop_connections()
    send(sink, "ok-2@example.com", "t2:n")  # no error: the dead one is found before use
    assert [r.to for r in sink.handler.received] == [["ok-1@example.com"], ["ok-2@example.com"]]
    assert sink.connections == 2 and sink.open == 1


def test_an_idle_connection_is_asked_noop_and_kept_when_it_answers(sink, settings):
    settings.NOTIFLOW_EMAIL_CONNECTION_CHECK_SECONDS = 0
    for i in range(3):
        send(sink, f"ok-{i}@example.com", f"t{i}:n")
    assert sink.connections == 1 and len(sink.handler.received) == 3


def test_a_connection_broken_mid_message_is_a_transient_failure_and_the_next_send_reconnects(
    sink,
):
    send(sink, "ok-1@example.com", "t1:n")
    with pytest.raises(TransientError, match=r"email transport|SMTP"):
        send(sink, "drop-1@example.com", "t2:n")
    # The retry of the same message, on a new connection: delivered once, counted twice.
    send(sink, "drop-1@example.com", "t2:n")
    assert sink.connections == 2
    assert sink.handler.deliveries[message_id_for("t2:n")] == 2
    assert len(sink.handler.to("drop-1@example.com")) == 1


def test_idle_connections_are_closed_after_the_timeout_and_all_at_shutdown(sink, settings):
    send(sink, "ok-1@example.com", "t1:n")
    settings.NOTIFLOW_EMAIL_CONNECTION_IDLE_SECONDS = 3600
    assert connections_close_idle() == 0 and sink.open == 1
    assert connections_close_idle(idle_seconds=0) == 1
    wait_until(lambda: sink.open == 0)
    send(sink, "ok-2@example.com", "t2:n")  # opens again
    assert sink.connections == 2 and sink.open == 1
    connections_close_all()
    wait_until(lambda: sink.open == 0)


def test_each_thread_has_its_own_connection(sink):
    def sends(name: str) -> None:
        for i in range(3):
            send(sink, f"ok-{name}{i}@example.com", f"{name}{i}:n")

    threads = [threading.Thread(target=sends, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(sink.handler.received) == 6
    assert sink.connections == 2


def test_the_provider_of_the_older_settings_follows_a_change_of_them(sink, settings):
    other = SmtpServer()
    other.start()
    try:
        fallback = Provider("smtp", "email", SMTP, {})
        rendered = {"to": "ok-1@example.com", "subject": "Hi", "body": "Hello"}
        for server, key in ((sink, "t1:n"), (other, "t2:n")):
            settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", server.port
            CHANNELS["email"].send(rendered, idempotency_key=key, provider=fallback)
        assert (len(sink.handler.received), len(other.handler.received)) == (1, 1)
    finally:
        connections_close_all()
        other.stop()
