"""A loopback HTTP stand-in for the fetch node's tests (workflows/nodes/fetch.py): an answer per
path for every class of answer a fetch meets, and a record of every request it got.

    /json                 200, a JSON body (and a cookie and other headers a run must not keep)
    /text                 200, text
    /echo                 200, JSON of the request: method, headers, body
    /status/<code>        that status (a short text body)
    /retry-after/<value>  429 with that Retry-After ("-" for none)
    /redirect/<n>         302 to /redirect/<n-1>; /redirect/0 answers as /echo
    /see-other            303 to /echo
    /temporary            307 to /echo
    /to?url=<url>         302 to <url>
    /big/<bytes>          200, that many bytes of JSON string
    /flaky/<n>            503 the first n times (per stand-in), then as /json
    /hang                 no answer until the stand-in stops (or 10 s)
    /drip                 a status line, then one header byte every 0.1 s (for 10 s)
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.serving import serving_thread

HANG_SECONDS = 10.0


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class FetchStandIn:
    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = serving_thread(self._server)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def seen(self, prefix: str = "/") -> list[Seen]:
        return [r for r in list(self.requests) if r.path.startswith(prefix)]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                stand_in.requests.append(Seen(self.command, self.path, dict(self.headers), body))
                path = urlsplit(self.path).path
                if path == "/json":
                    self._answer(
                        200,
                        json.dumps({"status": "shipped", "items": [1, 2]}).encode(),
                        "application/json",
                        {"Set-Cookie": "session=secret", "X-Request-Id": "r-1", "ETag": '"v1"'},
                    )
                elif path == "/text":
                    self._answer(200, b"plain words", "text/plain; charset=utf-8")
                elif path in ("/echo", "/redirect/0"):
                    seen = {
                        "method": self.command,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": body.decode(),
                    }
                    self._answer(200, json.dumps(seen).encode(), "application/json")
                elif path.startswith("/flaky/"):
                    with stand_in._lock:
                        failed = len(stand_in.seen("/flaky/")) - 1
                    if failed < int(path.rsplit("/", 1)[1]):
                        self._answer(503, b"try again", "text/plain")
                    else:
                        self._answer(200, b'{"status": "shipped"}', "application/json")
                elif path.startswith("/status/"):
                    self._answer(int(path.rsplit("/", 1)[1]), b"an error", "text/plain")
                elif path.startswith("/retry-after/"):
                    value = path.rsplit("/", 1)[1]
                    extra = {} if value == "-" else {"Retry-After": value}
                    self._answer(429, b"slow down", "text/plain", extra)
                elif path.startswith("/redirect/"):
                    hops = int(path.rsplit("/", 1)[1])
                    self._answer(302, b"", "text/plain", {"Location": f"/redirect/{hops - 1}"})
                elif path == "/see-other":
                    self._answer(303, b"", "text/plain", {"Location": "/echo"})
                elif path == "/temporary":
                    self._answer(307, b"", "text/plain", {"Location": "/echo"})
                elif path == "/to":
                    target = parse_qs(urlsplit(self.path).query)["url"][0]
                    self._answer(302, b"", "text/plain", {"Location": target})
                elif path.startswith("/big/"):
                    size = int(path.rsplit("/", 1)[1])
                    self._answer(200, json.dumps("x" * (size - 2)).encode(), "application/json")
                elif path == "/hang":
                    stand_in._stopping.wait(HANG_SECONDS)
                elif path == "/drip":
                    self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                    for _ in range(100):
                        if stand_in._stopping.wait(0.1):
                            return
                        try:
                            self.wfile.write(b"X")
                            self.wfile.flush()
                        except OSError:
                            return
                else:
                    self._answer(404, b"no such path", "text/plain")

            def _answer(
                self,
                status: int,
                body: bytes,
                content_type: str,
                extra: dict[str, Any] | None = None,
            ) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for name, value in (extra or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

            def log_message(self, *args: Any) -> None:
                pass

        return Handler
