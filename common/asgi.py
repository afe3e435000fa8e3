"""The web process's ASGI adapter, which notiflow/asgi.py builds for gunicorn's own `asgi` worker
(`gunicorn -c python:notiflow.gunicorn_conf notiflow.asgi`; notiflow/gunicorn_conf.py). It knows
no app: the waiting and the streams it serves are given to it (their factories and environ keys).

A small adapter, not an async Django: every request runs the ordinary Django WSGI application
(notiflow.wsgi) in a fixed pool of NOTIFLOW_WEB_THREADS [4] threads per worker process, as
gunicorn's threaded workers did. `loop.run_in_executor` copies no context, and Django keeps its
database connections per thread, so each pool thread keeps its persistent connection across
requests (tests/test_asgi.py counts them). asgiref's WsgiToAsgi and sync_to_async are not used
on this path.

What the event loop adds is waiting without a thread: a request the view defers
(`GET /api/triggers/<id>/?wait=`, triggers/waiting.py) gives its thread back, waits on the
process's shared `TerminalWaiter`, and is then sent to Django again with the wait turned off.
The marker is an object in the WSGI environ under a key no client can set, so a client can
neither make the adapter wait nor see it. A stream (`GET /api/inbox/stream/`, inbox/stream.py)
is deferred the same way: the view answers its first events and notes the recipient in its
`StreamSlot`; the adapter keeps the response open, waits on the process's one `InboxListener`,
and sends the request to Django again after each change, writing each answer to the stream.

Response bodies are read in the pool, up to READ_BATCH_BYTES at a time; an iterable that is
done is closed in the thread that ran its request (Django's request_finished, and with it the
connection's housekeeping, runs there). Lifespan startup starts the pool and the waiter;
shutdown stops the waiter, closes every pool thread's database connection and the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_to_bytes

logger = logging.getLogger(__name__)

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

# A response body is read from its iterable in the pool, this much at a time at most.
READ_BATCH_BYTES = 65536
# How long shutdown waits for each pool thread to close its database connection.
SHUTDOWN_CLOSE_SECONDS = 5.0


def wsgi_environ(scope: Scope, body: bytes) -> dict[str, Any]:
    """PEP 3333's environ for an ASGI HTTP scope and its whole request body."""
    script_name = scope.get("root_path", "").encode("utf-8").decode("latin-1")
    raw_path = scope.get("raw_path")
    if raw_path:
        # PATH_INFO is the undecoded bytes as latin-1 ("WSGI strings"), %-escapes resolved, as
        # WSGI servers give it; Django decodes it as UTF-8.
        path = unquote_to_bytes(raw_path.split(b"?", 1)[0]).decode("latin-1")
    else:
        path = scope["path"].encode("utf-8").decode("latin-1")
    if script_name and path.startswith(script_name):
        path = path[len(script_name) :]
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client")
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": script_name,
        "PATH_INFO": path,
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]) if server[1] is not None else "80",
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": client[0] if client else "",
        "REMOTE_PORT": str(client[1]) if client else "",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope.get("headers", ()):
        name = raw_name.decode("latin-1").lower()
        if "_" in name:
            # `X_Forwarded_For` would pass for `X-Forwarded-For` (gunicorn and runserver drop
            # such names too).
            continue
        if name == "content-type":
            key = "CONTENT_TYPE"
        elif name == "content-length":
            key = "CONTENT_LENGTH"
        else:
            key = "HTTP_" + name.upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        if key in environ:
            value = environ[key] + ("; " if key == "HTTP_COOKIE" else ",") + value
        environ[key] = value
    if body or "CONTENT_LENGTH" in environ:
        # The body is all here, however it came (chunked requests carry no Content-Length).
        environ["CONTENT_LENGTH"] = str(len(body))
    return environ


@dataclass
class WsgiResponse:
    """A WSGI answer as far as it was read in the pool: `rest` is the iterator still to read
    (None once it is done and closed)."""

    status: int
    headers: list[tuple[bytes, bytes]]
    chunks: list[bytes]
    rest: Iterator[bytes] | None = None
    closer: Callable[[], None] | None = field(default=None, repr=False)


def _read_batch(iterator: Iterator[bytes], into: list[bytes]) -> bool:
    """Append up to READ_BATCH_BYTES from the iterator; True when it is exhausted."""
    size = 0
    for chunk in iterator:
        if chunk:
            into.append(chunk)
            size += len(chunk)
            if size >= READ_BATCH_BYTES:
                return False
    return True


def _close(closer: Callable[[], None] | None) -> None:
    if closer is not None:
        closer()


def run_wsgi(app: WsgiApp, environ: dict[str, Any]) -> WsgiResponse:
    """Call the WSGI app and read its first batch of body (in a pool thread)."""
    started: list[Any] = []
    written: list[bytes] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        if exc_info is not None and started:
            raise exc_info[1].with_traceback(exc_info[2])
        started[:] = [status, headers]
        return written.append

    result = app(environ, start_response)
    closer = getattr(result, "close", None)
    try:
        iterator = iter(result)
        done = _read_batch(iterator, written)
    except BaseException:
        _close(closer)
        raise
    if done:
        _close(closer)
    status, headers = started
    return WsgiResponse(
        status=int(status.split(" ", 1)[0]),
        headers=[
            (name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers
        ],
        chunks=written,
        rest=None if done else iterator,
        closer=None if done else closer,
    )


def read_more(response: WsgiResponse) -> list[bytes]:
    """The next batch of a streaming body (in a pool thread); closes it once it is done."""
    assert response.rest is not None
    chunks: list[bytes] = []
    try:
        done = _read_batch(response.rest, chunks)
    except BaseException:
        response.rest = None
        _close(response.closer)
        raise
    if done:
        response.rest = None
        _close(response.closer)
    return chunks


def discard(response: WsgiResponse) -> None:
    """Close a response that will not be sent (in a pool thread)."""
    if response.rest is not None:
        response.rest = None
        _close(response.closer)


def _close_connections(barrier: threading.Barrier) -> None:
    """Close this pool thread's database connections, once every thread is here (so that each
    thread runs exactly one of these)."""
    from django.db import connections

    # A thread still busy past the timeout breaks the barrier; the others close all the same.
    with contextlib.suppress(threading.BrokenBarrierError):
        barrier.wait(timeout=SHUTDOWN_CLOSE_SECONDS)
    connections.close_all()


class WsgiAdapter:
    """The ASGI application (see the module)."""

    def __init__(
        self,
        wsgi_app: WsgiApp,
        *,
        threads: int,
        waiter_factory: Callable[[], Any],
        wait_environ_key: str,
        slot_factory: Callable[[bool], Any],
        max_body: int | None = None,
        stream_environ_key: str | None = None,
        stream_slot_factory: Callable[[bool], Any] | None = None,
        listener_factory: Callable[[], Any] | None = None,
        stream_follow: Callable[..., Awaitable[None]] | None = None,
        heartbeat_seconds: float = 15.0,
    ):
        self.wsgi_app = wsgi_app
        self.threads = threads
        self._waiter_factory = waiter_factory
        self._wait_key = wait_environ_key
        self._slot = slot_factory
        # The body is read whole before Django sees it: past this, not further (see _read_body).
        self.max_body = max_body
        self.pool: ThreadPoolExecutor | None = None
        self.waiter: Any = None
        # Streams (inbox/stream.py): a view may keep its response open, as a view may wait.
        self._stream_key = stream_environ_key
        self._stream_slot = stream_slot_factory
        self._listener_factory = listener_factory
        self._stream_follow = stream_follow
        self.heartbeat_seconds = heartbeat_seconds
        self.listener: Any = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        # Anything else (websocket) is not served: returning closes it.

    def start(self) -> None:
        if self.pool is None:
            self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="web")
        if self.waiter is None:
            self.waiter = self._waiter_factory()
        if self.listener is None and self._listener_factory is not None:
            self.listener = self._listener_factory()

    async def stop(self) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is not None:
            await waiter.close()
        listener, self.listener = self.listener, None
        if listener is not None:
            await listener.close()
        pool, self.pool = self.pool, None
        if pool is not None:
            barrier = threading.Barrier(self.threads)
            loop = asyncio.get_running_loop()
            await asyncio.gather(
                *(
                    loop.run_in_executor(pool, _close_connections, barrier)
                    for _ in range(self.threads)
                )
            )
            pool.shutdown(wait=False)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    self.start()
                except Exception as exc:
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                try:
                    await self.stop()
                finally:
                    await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        arrived = loop.time()
        self.start()
        body = await _read_body(receive, self.max_body)
        if body is None:
            return  # the client left before its request was whole
        slot = self._slot(False)
        environ = wsgi_environ(scope, body)
        environ[self._wait_key] = slot
        stream = None
        if self._stream_slot is not None and self._stream_key is not None and self._stream_follow:
            stream = environ[self._stream_key] = self._stream_slot(False)
        response = await loop.run_in_executor(self.pool, run_wsgi, self.wsgi_app, environ)
        if stream is not None and stream.recipient is not None and response.status == 200:
            await self._stream(scope, body, response, stream, receive, send)
            return
        if slot.trigger_id is not None:
            if response.rest is not None:
                await loop.run_in_executor(self.pool, discard, response)
            remaining = arrived + slot.seconds - loop.time()
            if remaining > 0 and not await self._wait(slot.trigger_id, remaining, receive):
                return  # the client left while it waited
            environ = wsgi_environ(scope, body)
            environ[self._wait_key] = self._slot(True)
            response = await loop.run_in_executor(self.pool, run_wsgi, self.wsgi_app, environ)
        await self._send(response, send)

    async def _wait(self, trigger_id: Any, seconds: float, receive: Receive) -> bool:
        """Wait for the trigger or the deadline; False when the client disconnected first."""
        waiting = asyncio.ensure_future(self.waiter.wait(trigger_id, seconds))
        # Once the body is read, receive() returns only when the client goes away.
        gone = asyncio.ensure_future(receive())
        try:
            done, _ = await asyncio.wait({waiting, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (waiting, gone):
                task.cancel()
        if waiting in done:
            if waiting.exception() is not None:
                # The waiter failed: answer now, as at the deadline.
                logger.error("waiting for a trigger failed", exc_info=waiting.exception())
            return True
        return False

    async def _stream(
        self,
        scope: Scope,
        body: bytes,
        response: WsgiResponse,
        stream: Any,
        receive: Receive,
        send: Send,
    ) -> None:
        """A response the view keeps open (inbox/stream.py, `stream_follow`): its first answer
        without its length, then the view's answer again after each change."""
        loop = asyncio.get_running_loop()
        if response.rest is not None:  # a stream's answers are small: never read in batches
            await loop.run_in_executor(self.pool, discard, response)
            return
        key, new_slot, follow = self._stream_key, self._stream_slot, self._stream_follow
        assert key is not None and new_slot is not None and follow is not None

        async def again(before: Any) -> tuple[Any, bytes] | None:
            slot = new_slot(True)
            slot.carry(before)
            environ = wsgi_environ(scope, body)
            environ[key] = slot
            answer = await loop.run_in_executor(self.pool, run_wsgi, self.wsgi_app, environ)
            if answer.rest is not None:
                await loop.run_in_executor(self.pool, discard, answer)
                return None
            return (slot, b"".join(answer.chunks)) if answer.status == 200 else None

        await follow(
            slot=stream,
            headers=[(k, v) for k, v in response.headers if k != b"content-length"],
            first=b"".join(response.chunks),
            again=again,
            listener=self.listener,
            heartbeat=self.heartbeat_seconds,
            receive=receive,
            send=send,
        )

    async def _send(self, response: WsgiResponse, send: Send) -> None:
        loop = asyncio.get_running_loop()
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status,
                    "headers": response.headers,
                }
            )
            chunks = response.chunks
            while True:
                more = response.rest is not None
                body = b"".join(chunks)
                if body or not more:
                    await send({"type": "http.response.body", "body": body, "more_body": more})
                if not more:
                    return
                chunks = await loop.run_in_executor(self.pool, read_more, response)
        finally:
            if response.rest is not None:  # the client left mid-body
                await loop.run_in_executor(self.pool, discard, response)


async def _read_body(receive: Receive, limit: int | None) -> bytes | None:
    """The whole request body, or its first bytes past `limit` (Django then refuses it, 413, by
    its length, and gunicorn closes the connection with the rest unread); None when the client
    left."""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        part = message.get("body", b"")
        parts.append(part)
        size += len(part)
        if not message.get("more_body", False) or (limit is not None and size > limit):
            return b"".join(parts)
