"""The Twilio backend against a real HTTP server on loopback."""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest
from django.test import override_settings

from tests.support.serving import serving_thread
from workers.errors import PermanentError, TransientError
from workers.providers.sms import TwilioBackend


class FakeTwilio(BaseHTTPRequestHandler):
    requests: list[dict] = []

    def do_POST(self):
        form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
        FakeTwilio.requests.append({"path": self.path, "headers": dict(self.headers), "form": form})
        to = form["To"][0]
        if to == "+1slow":
            time.sleep(1.5)
        status = {"+1503": 503, "+1429": 429, "+1400": 400, "+1401": 401}.get(to, 201)
        body = {"sid": "SM123"} if status == 201 else {"message": f"status {status}"}
        raw = {"+1garbled": b"<html>ok</html>", "+1nosid": b'{"status": "queued"}'}
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(raw.get(to) or json.dumps(body).encode())

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def twilio_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeTwilio)
    thread = serving_thread(server)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture
def backend(twilio_url):
    FakeTwilio.requests.clear()
    return TwilioBackend(
        base_url=twilio_url, account_sid="AC1", auth_token="tok", from_number="+1000"
    )


def test_accepted_message_returns_sid_and_carries_idempotency_key(backend):
    assert backend.send(to="+1555", body="hi", idempotency_key="t1:sms") == "SM123"
    (request,) = FakeTwilio.requests
    assert request["path"] == "/2010-04-01/Accounts/AC1/Messages.json"
    assert request["headers"]["Idempotency-Key"] == "t1:sms"
    assert request["form"] == {"To": ["+1555"], "From": ["+1000"], "Body": ["hi"]}
    assert request["headers"]["Authorization"].startswith("Basic ")


@pytest.mark.parametrize("to", ["+1503", "+1429"])
def test_server_errors_and_throttling_are_transient(backend, to):
    with pytest.raises(TransientError):
        backend.send(to=to, body="x", idempotency_key="k")


@pytest.mark.parametrize("to", ["+1400", "+1401"])
def test_client_errors_are_permanent(backend, to):
    with pytest.raises(PermanentError, match=to[2:]):
        backend.send(to=to, body="x", idempotency_key="k")


@override_settings(NOTIFLOW_SMS_TIMEOUT_SECONDS=0.3)
def test_timeout_is_transient(backend):
    with pytest.raises(TransientError, match="Timeout"):
        backend.send(to="+1slow", body="x", idempotency_key="k")


def test_connection_refused_is_transient():
    backend = TwilioBackend(
        base_url="http://127.0.0.1:9", account_sid="A", auth_token="t", from_number="+1"
    )
    with pytest.raises(TransientError):
        backend.send(to="+1", body="x", idempotency_key="k")


def test_missing_credentials_are_permanent():
    with pytest.raises(PermanentError, match="TWILIO"):
        TwilioBackend(base_url="http://x", account_sid="", auth_token="", from_number="")


@pytest.mark.parametrize("to", ["+1garbled", "+1nosid"])
def test_an_accepted_message_with_an_unreadable_answer_is_sent_not_retried(backend, to):
    # 2xx: Twilio took the message. Retrying (a TransientError) would send it a second time.
    assert backend.send(to=to, body="hi", idempotency_key="t9:sms") is None
    assert len(FakeTwilio.requests) == 1
