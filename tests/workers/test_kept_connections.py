"""Email providers' connections kept open per worker thread (workers/providers/connections.py;
docs/design/channels.md, "Kept connections"), against the real SMTP stand-in, which counts the
connections it accepted."""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.smtp import SmtpServer
from workers.channels import CHANNELS
from workers.channels.email import message_id_for
from workers.errors import PermanentError, TransientError
from workers.providers import Provider
from workers.providers.connections import connections_close_all, connections_close_idle, stats

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


class EspServer(ThreadingHTTPServer):
    """Postmark's send API on loopback over HTTP/1.1 keep-alive: each address's local part says
    how to answer (`ok`, `fail500`, `bad422`; `cut` closes the connection without an answer), and
    it counts the connections it accepted."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _EspHandler)
        self.connections = 0
        self.posted: list[str] = []

    @property
    def port(self) -> int:
        return self.server_address[1]


class _EspHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: EspServer

    def setup(self) -> None:
        super().setup()
        self.server.connections += 1

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        to = body["To"]
        self.server.posted.append(to)
        how = to.split("-", 1)[0]
        if how == "cut":
            self.close_connection = True
            return
        status, answer = {
            "ok": (200, {"To": to, "MessageID": str(uuid.uuid4()), "ErrorCode": 0}),
            "fail500": (500, {"ErrorCode": 100, "Message": "Maintenance"}),
            "bad422": (422, {"ErrorCode": 300, "Message": "Invalid email request"}),
        }[how]
        data = json.dumps({"Message": "OK", **answer}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def esp():
    server = EspServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    connections_close_all()
    server.shutdown()
    server.server_close()


def esp_send(esp: EspServer, to: str, key: str) -> dict:
    options = {"server_token": "t", "api_url": f"http://127.0.0.1:{esp.port}/"}
    rendered = {"to": to, "subject": "Hi", "body": "Hello"}
    provider = Provider("esp", "email", "anymail.backends.postmark.EmailBackend", options)
    return CHANNELS["email"].send(rendered, idempotency_key=key, provider=provider)


def test_an_esps_error_answer_keeps_its_connection_and_a_cut_request_drops_it(esp):
    esp_send(esp, "ok-1@example.com", "t1:n")
    with pytest.raises(TransientError):
        esp_send(esp, "fail500-1@example.com", "t2:n")
    with pytest.raises(PermanentError):
        esp_send(esp, "bad422-1@example.com", "t3:n")
    esp_send(esp, "ok-2@example.com", "t4:n")
    # The ESP answered each in full: the one connection served all four.
    assert esp.connections == 1

    dropped = stats["dropped"]
    with pytest.raises(TransientError):
        esp_send(esp, "cut-1@example.com", "t5:n")
    assert stats["dropped"] == dropped + 1  # a request broken mid-way takes its session with it
    esp_send(esp, "ok-3@example.com", "t6:n")
    assert esp.connections == 2
    assert esp.posted == [
        "ok-1@example.com",
        "fail500-1@example.com",
        "bad422-1@example.com",
        "ok-2@example.com",
        "cut-1@example.com",
        "ok-3@example.com",
    ]
