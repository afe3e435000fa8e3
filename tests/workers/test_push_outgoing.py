"""Web push endpoints are addresses a recipient supplied (issue 43 §1; docs/security/providers.md, "Web push
endpoints"): no redirect followed, private addresses refused unless NOTIFLOW_PUSH_ALLOW_PRIVATE,
one deadline for the whole request, one fixed phrase for every way of getting no answer, at most
NOTIFLOW_PUSH_CONCURRENCY requests in flight per worker, and never a byte of an answer's body in
the run. FCM's answers are read the same way."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from events.models import OutboxEvent, WebhookEndpoint
from recipients.models import Recipient
from tests.conftest import unique
from tests.factories import chain, webpush_node
from tests.support.push import FcmService, PushService
from tests.support.receiver import Receiver
from tests.support.serving import serving_thread
from tests.support.smtp import free_port
from tests.workers.helpers import due_trigger
from tests.workers.test_push_channels import PAYLOAD, step
from workers.errors import PermanentError, RateLimited, TransientError
from workers.models import StepExecutionLog
from workers.providers.outgoing import NO_ANSWER, REFUSED
from workers.providers.push import FcmBackend, webpush_backend
from workers.services.push_slots import push_slot

pytestmark = pytest.mark.django_db

NOTE = {"title": "Shipped", "body": "Order 7 shipped", "tag": "push-1"}
SECRET = "INTERNAL-SECRET-DATA role=admin AKIAIOSFODNN7EXAMPLE"

Answer = tuple[int, dict[str, str], bytes]


class Canned:
    """An HTTP server on loopback answering every request with `answer(path)`, recording the
    paths it was asked for."""

    def __init__(self, answer: Callable[[str], Answer]) -> None:
        paths: list[str] = []
        self.paths = paths

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                paths.append(self.path)
                status, headers, body = answer(self.path)
                self.send_response(status)
                for name, value in {**headers, "Content-Length": str(len(body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _any

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        serving_thread(self.server).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def internal() -> Iterator[Canned]:
    """An internal service that answers anyone with its secrets."""
    server = Canned(lambda path: (200, {}, SECRET.encode()))
    yield server
    server.stop()


@pytest.fixture
def redirecting(internal) -> Iterator[Canned]:
    """A push endpoint answering 307 (re-POST) to the internal service, with a body of its own."""
    server = Canned(lambda path: (307, {"Location": f"{internal.url}/admin"}, SECRET.encode()))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def push_service(vapid):
    service = PushService(vapid_public_key=vapid[1])
    service.start()
    yield service
    service.stop()


@pytest.fixture(scope="module")
def vapid():
    from workers.providers.push import vapid_key_pair

    return vapid_key_pair()


@pytest.fixture(autouse=True)
def push_settings(settings, vapid):
    settings.NOTIFLOW_VAPID_PRIVATE_KEY, settings.NOTIFLOW_VAPID_PUBLIC_KEY = vapid
    settings.NOTIFLOW_VAPID_SUBJECT = "mailto:ops@example.com"
    settings.NOTIFLOW_WEBPUSH_ALLOW_HTTP = True
    settings.NOTIFLOW_PUSH_TIMEOUT_SECONDS = 1
    return settings


def subscription_at(push_service: PushService, endpoint: str) -> dict[str, Any]:
    """A browser's subscription (real keys) whose endpoint is `endpoint`."""
    return {**push_service.subscribe(unique("ok")), "endpoint": endpoint}


def test_a_307_to_an_internal_address_is_never_followed_and_the_run_keeps_status_and_phrase(
    push_service, redirecting, internal
):
    WebhookEndpoint.objects.create(  # the events the failure announces, to read
        url="https://hooks.example.com/in", events=["*"], secret="whsec_dGVzdA=="
    )
    recipient = Recipient.objects.create(
        key=unique("person"),
        channels={"webpush": [subscription_at(push_service, f"{redirecting.url}/push/x")]},
    )
    trigger = due_trigger(chain(webpush_node("browser")), payload=PAYLOAD, recipient=recipient.key)
    step(trigger)

    trigger.refresh_from_db()
    assert redirecting.paths == ["/push/x"]
    assert internal.paths == []  # never fetched
    assert trigger.status == "failed"
    assert trigger.last_error == "webpush: webpush: HTTP 307 (redirects are not followed)"
    logs = list(StepExecutionLog.objects.filter(trigger_id=trigger.pk).values())
    events = list(OutboxEvent.objects.filter(trigger_id=trigger.pk).values("data"))
    assert events  # the failure was announced
    everything = json.dumps([trigger.last_error, trigger.vars, logs, events], default=str)
    assert "INTERNAL-SECRET" not in everything and "AKIA" not in everything


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "10.1.2.3", "169.254.169.254"])
def test_with_the_setting_off_loopback_and_private_endpoints_are_refused_unsent(
    settings, push_service, host
):
    settings.NOTIFLOW_PUSH_ALLOW_PRIVATE = False
    port = push_service.url.rsplit(":", 1)[1]
    name = unique("ok-private")
    subscription = {**push_service.subscribe(name), "endpoint": f"http://{host}:{port}/push/{name}"}
    with pytest.raises(PermanentError) as refused:
        webpush_backend().send(subscription, NOTE, topic="t")
    assert str(refused.value) == f"webpush: {REFUSED}"
    assert push_service.counts[name] == 0


@pytest.fixture
def odd_ports() -> Iterator[dict[str, int]]:
    """Loopback ports where no push service is: one closed, one that accepts and hangs up, one
    that greets in another protocol (as a database or Redis would)."""
    listeners = {"hangs_up": socket.create_server(("127.0.0.1", 0))}
    listeners["greets"] = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve(listener: socket.socket, greeting: bytes) -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.sendall(greeting)

    threads = [
        threading.Thread(target=serve, args=(listeners["hangs_up"], b""), daemon=True),
        threading.Thread(
            target=serve,
            args=(listeners["greets"], b"-ERR " + SECRET.encode() + b"\r\n"),
            daemon=True,
        ),
    ]
    for thread in threads:
        thread.start()
    yield {"closed": free_port(), **{k: v.getsockname()[1] for k, v in listeners.items()}}
    stop.set()
    for thread in threads:
        thread.join()
    for listener in listeners.values():
        listener.close()


def test_closed_silent_and_foreign_ports_all_read_the_same_fixed_phrase(push_service, odd_ports):
    errors = set()
    for port in odd_ports.values():
        for scheme in ("http", "https"):
            endpoint = f"{scheme}://127.0.0.1:{port}/push/x"
            with pytest.raises(TransientError) as failed:
                webpush_backend().send(subscription_at(push_service, endpoint), NOTE, topic="t")
            errors.add(str(failed.value))
    assert errors == {f"webpush: {NO_ANSWER}"}


def test_an_endpoint_dripping_its_status_line_is_cut_off_at_the_deadline(push_service):
    drip = Receiver(drip_seconds=0.2)  # ~12 s for the whole answer; every read in time
    drip.start()
    try:
        started = time.monotonic()
        with pytest.raises(TransientError) as failed:
            webpush_backend().send(
                subscription_at(push_service, drip.url("/drip/x")), NOTE, topic="t"
            )
        assert str(failed.value) == f"webpush: {NO_ANSWER}"
        elapsed = time.monotonic() - started
    finally:
        drip.stop()
    assert 0.9 <= elapsed < 2, elapsed
    assert len(drip.received("/drip/")) == 1


def test_a_worker_has_at_most_its_push_concurrency_of_requests_in_flight(settings, push_service):
    settings.NOTIFLOW_PUSH_CONCURRENCY = 1
    name = unique("ok-second")
    with push_slot("webpush"):  # another step's request, in flight
        with pytest.raises(RateLimited) as limited:
            webpush_backend().send(push_service.subscribe(name), NOTE, topic="t")
        assert 0 < limited.value.wait.total_seconds() <= settings.NOTIFLOW_PUSH_TIMEOUT_SECONDS + 1
        assert push_service.counts[name] == 0
    assert webpush_backend().send(push_service.subscribe(name), NOTE, topic="t").message_id


@pytest.fixture(scope="module")
def fcm_service():
    service = FcmService()
    service.start()
    yield service
    service.stop()


def test_an_fcm_refusal_names_its_status_not_its_body(fcm_service):
    backend = FcmBackend(
        service_account=fcm_service.service_account(), base_url=fcm_service.url, timeout=2
    )
    with pytest.raises(PermanentError) as refused:
        backend.send("bad-phone", NOTE, topic="t")
    assert str(refused.value) == "fcm: HTTP 400"


def test_fcm_follows_no_redirect(fcm_service, redirecting, internal):
    backend = FcmBackend(
        service_account=fcm_service.service_account(), base_url=redirecting.url, timeout=2
    )
    with pytest.raises(PermanentError) as refused:
        backend.send("ok-phone", NOTE, topic="t")
    assert str(refused.value) == "fcm: HTTP 307 (redirects are not followed)"
    assert internal.paths == []
