"""A real HTTP receiver for webhooks on loopback, whose answer depends on the path:

/ok/...        200
/fail<N>/...   500 for the first N requests with a given webhook-id, then 200
/fail/...      500 always
/gone/...      410 Gone
/redirect/...  302 to /ok/ (a sender must not follow it)
/hang/...      no answer for 30 s (past any sender's timeout)
/hang1/...     the first request with a given webhook-id gets no answer for 30 s; later ones 200
/drip/...      a 200 sent one byte every `drip_seconds` [1], status line included: every read
               gets a byte well inside a per-read timeout, and the whole answer takes ~40 s

It records every request (path, headers, body) as it arrives, before answering.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.serving import serving_thread


@dataclass(frozen=True)
class Request:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def event(self) -> dict[str, Any]:
        return json.loads(self.body)

    @property
    def webhook_id(self) -> str:
        return self.headers["webhook-id"]


DRIP_ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class Receiver:
    def __init__(self, drip_seconds: float = 1.0) -> None:
        self.drip_seconds = drip_seconds
        self.requests: list[Request] = []
        self.counts: Counter[tuple[str, str]] = Counter()
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = serving_thread(self.server)

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def received(self, prefix: str = "/") -> list[Request]:
        with self.lock:
            return [r for r in self.requests if r.path.startswith(prefix)]

    def wait_for(
        self, prefix: str, count: int = 1, timeout: float = 30, *, about: str | None = None
    ) -> list[Request]:
        """The requests under `prefix` (only those whose event is about the run `about`, if
        given), once there are at least `count`; AssertionError after `timeout` seconds."""

        def got() -> list[Request]:
            requests = self.received(prefix)
            if about is None:
                return requests
            return [r for r in requests if r.event.get("subject") == about]

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(requests := got()) >= count:
                return requests
            time.sleep(0.05)
        raise AssertionError(f"{len(got())} of {count} requests to {prefix}")

    def _answer(self, path: str, webhook_id: str) -> int:
        with self.lock:
            self.counts[(path, webhook_id)] += 1
            seen = self.counts[(path, webhook_id)]
        first = path.strip("/").split("/", 1)[0]
        if first == "gone":
            return 410
        if first == "redirect":
            return 302
        if first == "hang" or (first == "hang1" and seen == 1):
            time.sleep(30)
            return 200
        if first == "fail":
            return 500
        failing = re.fullmatch(r"fail(\d+)", first)
        if failing and seen <= int(failing.group(1)):
            return 500
        return 200

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                with receiver.lock:
                    receiver.requests.append(Request(self.path, headers, body))
                if self.path.startswith("/drip/"):
                    self.drip()
                    return
                status = receiver._answer(self.path, headers.get("webhook-id", ""))
                self.send_response(status)
                if status == 302:
                    self.send_header("Location", "/ok/redirected")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def drip(self) -> None:
                self.close_connection = True
                try:
                    for byte in DRIP_ANSWER:
                        self.wfile.write(bytes([byte]))
                        time.sleep(receiver.drip_seconds)
                except OSError:  # the sender gave up and closed the connection
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        return Handler
