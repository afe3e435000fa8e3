"""The web process's ASGI adapter (common/asgi.py), driven in-process with ASGI messages: the
WSGI environ it builds, the bodies it reads and closes, the deferral of a waiting request and the
marker no client can forge, lifespan, and Django's connections kept per pool thread.

Over 500 lines: it drives the adapter with hand-made ASGI messages, and the fake server, waiter
and WSGI apps it needs are shared by every case."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.signals import request_finished
from django.core.wsgi import get_wsgi_application
from django.db.backends.signals import connection_created

from common.asgi import READ_BATCH_BYTES, WsgiAdapter, wsgi_environ
from triggers.api_keys import api_key_create
from triggers.waiting import WAIT_ENVIRON_KEY, WaitSlot


def scope(path: str = "/", query: bytes = b"", **extra: Any) -> dict[str, Any]:
    return {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode("utf-8"),
        "query_string": query,
        "root_path": "",
        "headers": [(b"host", b"testserver")],
        "server": ("127.0.0.1", 8000),
        "client": ("10.1.2.3", 55555),
        **extra,
    }


class FakeWaiter:
    """Records the waits; each one ends as `outcome` says (True: the trigger finished)."""

    def __init__(self, outcome: bool = True, delay: float = 0.0):
        self.outcome = outcome
        self.delay = delay
        self.calls: list[tuple[uuid.UUID, float]] = []
        self.cancelled = 0
        self.closed = False

    async def wait(self, trigger_id: uuid.UUID, timeout: float) -> bool:
        self.calls.append((trigger_id, timeout))
        try:
            await asyncio.sleep(min(self.delay, timeout))
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return self.outcome

    async def close(self) -> None:
        self.closed = True


def adapter(app: Any, waiter: FakeWaiter | None = None, threads: int = 2) -> WsgiAdapter:
    return WsgiAdapter(
        app,
        threads=threads,
        waiter_factory=lambda: waiter or FakeWaiter(),
        wait_environ_key=WAIT_ENVIRON_KEY,
        slot_factory=lambda redispatch: WaitSlot(redispatch=redispatch),
    )


async def call(
    app: WsgiAdapter,
    the_scope: dict[str, Any],
    bodies: tuple[bytes, ...] = (b"",),
    disconnect_after: float | None = None,
) -> list[dict[str, Any]]:
    """Run one request through the adapter; the messages it sent."""
    incoming = [
        {"type": "http.request", "body": body, "more_body": i < len(bodies) - 1}
        for i, body in enumerate(bodies)
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if incoming:
            return incoming.pop(0)
        # After the body: only a disconnect, when it comes.
        if disconnect_after is None:
            await asyncio.Event().wait()
        await asyncio.sleep(disconnect_after or 0)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    try:
        await app(the_scope, receive, send)
    finally:
        await app.stop()
    return sent


def answer(sent: list[dict[str, Any]]) -> tuple[int, dict[bytes, bytes], bytes]:
    start = sent[0]
    assert start["type"] == "http.response.start"
    assert all(m["type"] == "http.response.body" for m in sent[1:])
    assert not sent[-1].get("more_body", False)
    return start["status"], dict(start["headers"]), b"".join(m["body"] for m in sent[1:])


def echo_environ(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    echo_environ.seen = environ  # type: ignore[attr-defined]
    environ["wsgi.input"].read()
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok"]


# --- the environ --------------------------------------------------------------------------------


def test_environ_carries_path_query_headers_client_and_server():
    environ = wsgi_environ(
        scope(
            "/api/triggers/",
            b"status=failed&workflow=a%20b",
            headers=[
                (b"host", b"example.com:8443"),
                (b"authorization", b"Bearer k"),
                (b"content-type", b"application/json"),
                (b"x-forwarded-for", b"1.1.1.1"),
                (b"x-forwarded-for", b"2.2.2.2"),
                (b"cookie", b"a=1"),
                (b"cookie", b"b=2"),
            ],
            scheme="https",
        ),
        b"",
    )
    assert environ["REQUEST_METHOD"] == "GET"
    assert environ["PATH_INFO"] == "/api/triggers/"
    assert environ["SCRIPT_NAME"] == ""
    assert environ["QUERY_STRING"] == "status=failed&workflow=a%20b"
    assert environ["HTTP_HOST"] == "example.com:8443"
    assert environ["HTTP_AUTHORIZATION"] == "Bearer k"
    assert environ["CONTENT_TYPE"] == "application/json"
    assert "HTTP_CONTENT_TYPE" not in environ
    assert environ["HTTP_X_FORWARDED_FOR"] == "1.1.1.1,2.2.2.2"
    assert environ["HTTP_COOKIE"] == "a=1; b=2"
    assert environ["REMOTE_ADDR"] == "10.1.2.3"
    assert environ["SERVER_NAME"] == "127.0.0.1"
    assert environ["SERVER_PORT"] == "8000"
    assert environ["SERVER_PROTOCOL"] == "HTTP/1.1"
    assert environ["wsgi.url_scheme"] == "https"
    assert "CONTENT_LENGTH" not in environ


def test_environ_body_and_its_length_whatever_the_framing():
    body = b'{"workflow": "w"}' * 1000
    # Chunked: no Content-Length header came; Django reads CONTENT_LENGTH bytes.
    environ = wsgi_environ(scope(method="POST"), body)
    assert environ["CONTENT_LENGTH"] == str(len(body))
    assert environ["wsgi.input"].read() == body


def test_environ_path_is_wsgi_latin1_of_the_decoded_bytes_and_django_reads_utf8():
    raw = b"/api/workflows/caf%C3%A9/"
    environ = wsgi_environ(scope("/api/workflows/café/", raw_path=raw), b"")
    assert environ["PATH_INFO"] == "/api/workflows/caf\xc3\xa9/"

    from django.core.handlers.wsgi import WSGIRequest

    assert WSGIRequest(environ).path == "/api/workflows/café/"
    # Without raw_path, from the decoded path.
    environ = wsgi_environ(scope("/api/workflows/café/", raw_path=None), b"")
    assert environ["PATH_INFO"] == "/api/workflows/caf\xc3\xa9/"


def test_environ_script_name_from_root_path():
    environ = wsgi_environ(scope("/notiflow/api/health/", root_path="/notiflow"), b"")
    assert environ["SCRIPT_NAME"] == "/notiflow"
    assert environ["PATH_INFO"] == "/api/health/"


def test_header_names_with_underscores_are_dropped():
    environ = wsgi_environ(
        scope(headers=[(b"x_forwarded_proto", b"https"), (b"x-real", b"1")]), b""
    )
    assert "HTTP_X_FORWARDED_PROTO" not in environ
    assert environ["HTTP_X_REAL"] == "1"


# --- requests through the adapter ----------------------------------------------------------------


def test_a_request_reaches_the_wsgi_app_with_its_body_in_pieces():
    app = adapter(echo_environ)
    sent = asyncio.run(call(app, scope(method="POST"), bodies=(b"ab", b"cd", b"")))
    assert answer(sent) == (200, {b"content-type": b"text/plain"}, b"ok")
    seen = echo_environ.seen  # type: ignore[attr-defined]
    assert seen["CONTENT_LENGTH"] == "4"


class Streamed:
    """A streaming body that notes where it was read and closed."""

    def __init__(self, chunks: int, size: int = 4096):
        self.chunks = chunks
        self.size = size
        self.read_in: set[str] = set()
        self.closed_in: list[str] = []

    def __iter__(self) -> Iterator[bytes]:
        for i in range(self.chunks):
            self.read_in.add(threading.current_thread().name)
            yield bytes([65 + i % 26]) * self.size

    def close(self) -> None:
        self.closed_in.append(threading.current_thread().name)


def test_a_streaming_body_is_read_in_the_pool_in_batches_and_closed_once():
    body = Streamed(chunks=40)  # 160 KiB: three batches

    def app(environ: dict[str, Any], start_response: Any) -> Streamed:
        start_response("200 OK", [("Content-Type", "text/css")])
        return body

    sent = asyncio.run(call(adapter(app), scope()))
    status, _, content = answer(sent)
    assert status == 200
    assert len(content) == 40 * 4096
    assert content == b"".join(bytes([65 + i % 26]) * 4096 for i in range(40))
    assert len(sent) - 1 == -(-40 * 4096 // READ_BATCH_BYTES)
    assert body.read_in and all(name.startswith("web") for name in body.read_in)
    assert len(body.closed_in) == 1 and body.closed_in[0].startswith("web")


def test_a_body_is_closed_when_the_client_leaves_mid_body():
    body = Streamed(chunks=40)

    def app(environ: dict[str, Any], start_response: Any) -> Streamed:
        start_response("200 OK", [])
        return body

    async def run() -> None:
        app_ = adapter(app)

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message.get("more_body"):
                raise OSError("the client left")

        with pytest.raises(OSError):
            await app_(scope(), receive, send)
        await app_.stop()

    asyncio.run(run())
    assert len(body.closed_in) == 1


def test_a_plain_response_is_closed_in_the_thread_that_ran_it():
    """Django's request_finished (connection housekeeping) must run where the request ran."""
    ran_in: list[str] = []
    finished_in: list[str] = []

    def finished(**kwargs: Any) -> None:
        finished_in.append(threading.current_thread().name)

    wsgi = get_wsgi_application()

    def app(environ: dict[str, Any], start_response: Any) -> Any:
        ran_in.append(threading.current_thread().name)
        return wsgi(environ, start_response)

    request_finished.connect(finished)
    try:
        sent = asyncio.run(call(adapter(app), scope("/api/health/")))
    finally:
        request_finished.disconnect(finished)
    assert answer(sent)[0] in (200, 503)
    assert ran_in == finished_in and ran_in[0].startswith("web")


# --- deferral and the marker ---------------------------------------------------------------------

TRIGGER = uuid.UUID("00000000-0000-0000-0000-00000000abcd")


class Deferring:
    """A WSGI app that defers like the trigger view: the first time it is asked it notes a wait
    in the slot (when the adapter gave it one); asked again with `redispatch`, it answers."""

    def __init__(self, seconds: float = 5.0):
        self.seconds = seconds
        self.slots: list[Any] = []
        self.bodies: list[Streamed] = []

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        slot = environ.get(WAIT_ENVIRON_KEY)
        self.slots.append(slot)
        environ["wsgi.input"].read()
        if isinstance(slot, WaitSlot) and not slot.redispatch:
            slot.defer(TRIGGER, self.seconds)
            start_response("200 OK", [("X-Answer", "first")])
            body = Streamed(chunks=20)  # a streaming first answer: it must be closed
            self.bodies.append(body)
            return body
        start_response("200 OK", [("X-Answer", "final")])
        return [b"final"]


def test_a_deferred_request_waits_then_is_dispatched_again_and_only_that_answer_goes_out():
    app = Deferring(seconds=5)
    waiter = FakeWaiter(outcome=True)
    sent = asyncio.run(call(adapter(app, waiter), scope(method="POST"), bodies=(b"xy",)))
    assert answer(sent) == (200, {b"x-answer": b"final"}, b"final")
    assert [type(s) for s in app.slots] == [WaitSlot, WaitSlot]
    assert [s.redispatch for s in app.slots] == [False, True]
    assert len(waiter.calls) == 1
    trigger_id, timeout = waiter.calls[0]
    assert trigger_id == TRIGGER and 4 < timeout <= 5
    assert len(app.bodies[0].closed_in) == 1  # the discarded first answer


def test_the_wait_counts_from_the_request_s_arrival():
    app = Deferring(seconds=0.0001)
    waiter = FakeWaiter()
    sent = asyncio.run(call(adapter(app, waiter), scope()))
    assert answer(sent)[2] == b"final"
    assert waiter.calls == []  # the deadline had passed: dispatched again at once


def test_a_client_that_leaves_while_waiting_gets_nothing_and_stops_the_wait():
    app = Deferring(seconds=30)
    waiter = FakeWaiter(delay=30)
    started = time.monotonic()
    sent = asyncio.run(call(adapter(app, waiter), scope(), disconnect_after=0.2))
    assert sent == []
    assert time.monotonic() - started < 5
    assert waiter.cancelled == 1
    assert len(app.slots) == 1  # not dispatched again


@pytest.mark.parametrize(
    "headers",
    [
        [(b"notiflow.wait", b"1")],
        [(b"notiflow-wait", b"00000000-0000-0000-0000-00000000abcd;30")],
        [(b"x-notiflow-wait", b"00000000-0000-0000-0000-00000000abcd;30")],
    ],
    ids=["dotted", "dashed", "x-"],
)
def test_a_client_cannot_forge_the_marker(headers):
    """Whatever the client sends, the environ's marker is the adapter's own slot, and an app that
    does not defer is answered at once, its headers exactly as it set them."""
    seen: list[dict[str, Any]] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append(dict(environ))
        start_response("200 OK", [("Content-Type", "application/json")])
        return [b"{}"]

    waiter = FakeWaiter()
    sent = asyncio.run(call(adapter(app, waiter), scope(headers=[(b"host", b"x"), *headers])))
    assert answer(sent) == (200, {b"content-type": b"application/json"}, b"{}")
    assert waiter.calls == []
    (environ,) = seen
    slot = environ[WAIT_ENVIRON_KEY]
    assert isinstance(slot, WaitSlot) and not slot.redispatch and slot.trigger_id is None
    assert not any(
        key.lower().startswith("notiflow") and key != WAIT_ENVIRON_KEY for key in environ
    )


@pytest.fixture
def committed(django_db_setup, django_db_blocker) -> Iterator[None]:
    """The test database with this test's rows committed (the pool's threads have connections of
    their own, which would not see a test transaction); every row is unique to the test."""
    with django_db_blocker.unblock():
        yield


def test_a_client_sending_the_marker_to_the_trigger_view_neither_waits_nor_sees_it(committed):
    """The real view, through the adapter: a finished trigger with a forged marker header is
    answered at once, and the answer carries no trace of the marker."""
    from tests.workers.helpers import idle_trigger

    trigger = idle_trigger()
    trigger.status = "completed"
    trigger.save(update_fields=["status"])
    _, key = api_key_create(name=f"marker-{uuid.uuid4().hex[:8]}")
    waiter = FakeWaiter(delay=30)
    headers = [
        (b"host", b"testserver"),
        (b"authorization", f"Bearer {key}".encode()),
        (b"notiflow-wait", f"{trigger.pk};30".encode()),
        (b"notiflow.wait", b"1"),
    ]
    started = time.monotonic()
    app = adapter(get_wsgi_application(), waiter)
    sent = asyncio.run(call(app, scope(f"/api/triggers/{trigger.pk}/", headers=headers)))
    status, response_headers, body = answer(sent)
    assert time.monotonic() - started < 5
    assert status == 200 and b'"completed"' in body
    assert waiter.calls == []
    assert not any(b"notiflow" in name or b"wait" in name for name in response_headers)


# --- lifespan and connections -------------------------------------------------------------------


def test_lifespan_starts_and_stops_the_pool_and_the_waiter():
    waiter = FakeWaiter()
    app = adapter(echo_environ, waiter)
    messages = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent: list[dict[str, Any]] = []
    states: list[bool] = []

    async def receive() -> dict[str, Any]:
        states.append(app.pool is not None and app.waiter is not None)
        return messages.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app({"type": "lifespan"}, receive, send))
    assert [m["type"] for m in sent] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert states == [False, True]
    assert app.pool is None and app.waiter is None and waiter.closed


def test_each_pool_thread_keeps_its_database_connection(committed):
    """30 requests, 10 at a time, through a pool of 2 threads open 2 connections, not 30 (the
    gthread worker's behaviour); stopping the adapter closes them."""
    from tests.workers.helpers import idle_trigger

    trigger = idle_trigger()
    _, key = api_key_create(name=f"reuse-{uuid.uuid4().hex[:8]}")
    opened: list[str] = []

    def created(**kwargs: Any) -> None:
        opened.append(threading.current_thread().name)

    headers = [(b"host", b"testserver"), (b"authorization", f"Bearer {key}".encode())]
    app = adapter(get_wsgi_application(), threads=2)

    async def many() -> list[list[dict[str, Any]]]:
        results = []
        for _ in range(3):
            results += await asyncio.gather(
                *(
                    call_open(app, scope(f"/api/triggers/{trigger.pk}/", headers=headers))
                    for _ in range(10)
                )
            )
        await app.stop()
        return results

    connection_created.connect(created)
    try:
        results = asyncio.run(many())
    finally:
        connection_created.disconnect(created)
    assert all(answer(sent)[0] == 200 for sent in results)
    assert len(opened) == 2, opened
    assert len(set(opened)) == 2


async def call_open(app: WsgiAdapter, the_scope: dict[str, Any]) -> list[dict[str, Any]]:
    """One request, leaving the adapter running (call() stops it)."""
    incoming = [{"type": "http.request", "body": b"", "more_body": False}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if incoming:
            return incoming.pop(0)
        await asyncio.Event().wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(the_scope, receive, send)
    return sent


def test_a_body_past_the_limit_is_not_read_further_and_django_refuses_it(committed):
    """The adapter buffers the body before Django runs: past DATA_UPLOAD_MAX_MEMORY_SIZE it stops
    reading, and Django's own size check answers 413 (gunicorn then closes the connection)."""
    from django.conf import settings

    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    _, key = api_key_create(name=f"limit-{uuid.uuid4().hex[:8]}")
    piece = b"x" * 65536
    pieces = tuple([piece] * (limit // len(piece) + 20))
    taken: list[int] = []

    app = adapter(get_wsgi_application())
    app.max_body = limit

    async def run() -> list[dict[str, Any]]:
        incoming = [
            {"type": "http.request", "body": p, "more_body": i < len(pieces) - 1}
            for i, p in enumerate(pieces)
        ]
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            taken.append(1)
            return incoming.pop(0)

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        headers = [
            (b"host", b"testserver"),
            (b"content-type", b"application/json"),
            (b"authorization", f"Bearer {key}".encode()),
        ]
        await app(scope("/api/triggers/", method="POST", headers=headers), receive, send)
        await app.stop()
        return sent

    sent = asyncio.run(run())
    status, _, body = answer(sent)
    assert status == 413, body
    assert len(taken) == limit // len(piece) + 1  # one piece past the limit, no more
