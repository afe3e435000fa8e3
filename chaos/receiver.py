"""The chaos run's webhook receiver: a real HTTP server on loopback that records every POST as it
arrives, verifies its signature with the Standard Webhooks reference library (not Notiflow's own
code), and is unreliable on purpose:

- it answers 500 to the first attempt of a fraction of the webhook-ids, at random (seeded), so
  the dispatcher's retries run all along;
- the fault `receiver-down` closes its listening socket for a few seconds (connections are
  refused), then listens again on the same port.

Everything else gets 200. tests/support/receiver.py is the tests' scripted receiver; this one
answers by chance rather than by path, and keeps what a run's count needs.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks.webhooks import Webhook

PATH = "/hooks/chaos"


@dataclass(frozen=True)
class Arrival:
    """One POST: when it arrived (wall clock, to compare with PostgreSQL's), its webhook-id,
    its body, what the receiver answered and whether the signature verified (else why not)."""

    at: float
    webhook_id: str
    body: bytes
    status: int
    verify_error: str

    @property
    def event(self) -> dict[str, Any]:
        try:
            parsed = json.loads(self.body)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}


class ChaosReceiver:
    """Start, then set `secret` (the endpoint's, known once the endpoint exists) before any event
    can be sent. `down(seconds)` is the fault; `stop()` at the end."""

    def __init__(self, *, fail_first: float, seed: int | None):
        self.fail_first = fail_first
        self.rng = random.Random(seed)
        self.secret = ""
        self.lock = threading.Lock()
        self.arrivals: list[Arrival] = []
        self.seen: Counter[str] = Counter()
        self.failed_on_purpose = 0
        self.outages = 0
        self.port = 0
        self.server: ThreadingHTTPServer | None = None
        self.reopen: threading.Timer | None = None
        self.stopped = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PATH}"

    def start(self) -> None:
        with self.lock:
            self._listen()

    def _listen(self) -> None:
        # allow_reuse_address (on for HTTPServer): the same port again right after a close.
        server = ThreadingHTTPServer(("127.0.0.1", self.port), self._handler())
        server.daemon_threads = True
        self.port = server.server_address[1]
        self.server = server
        threading.Thread(target=server.serve_forever, name="chaos-receiver", daemon=True).start()

    def _close(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def down(self, seconds: float) -> str:
        """Stop listening now and listen again after `seconds` (without waiting for it)."""
        with self.lock:
            if self.server is None or self.stopped:
                return "already down"
            self._close()
            self.outages += 1
            self.reopen = threading.Timer(seconds, self._back)
            self.reopen.daemon = True
            self.reopen.start()
        return f"receiver refuses connections for {seconds:g}s"

    def _back(self) -> None:
        with self.lock:
            if not self.stopped and self.server is None:
                self._listen()

    @property
    def listening(self) -> bool:
        return self.server is not None

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
            if self.reopen is not None:
                self.reopen.cancel()
            self._close()

    def received(self) -> list[Arrival]:
        with self.lock:
            return list(self.arrivals)

    def _verify(self, body: bytes, headers: dict[str, str]) -> str:
        if not self.secret:
            return "no secret set yet"
        try:
            Webhook(self.secret).verify(body, headers)
        except Exception as exc:  # the reference library's verdict, whatever it raises
            return f"{type(exc).__name__}: {exc}"
        return ""

    def _arrive(self, body: bytes, headers: dict[str, str]) -> int:
        webhook_id = headers.get("webhook-id", "")
        error = self._verify(body, headers)
        with self.lock:
            self.seen[webhook_id] += 1
            first = self.seen[webhook_id] == 1
            status = 500 if first and self.rng.random() < self.fail_first else 200
            if status == 500:
                self.failed_on_purpose += 1
            self.arrivals.append(Arrival(time.time(), webhook_id, body, status, error))
        return status

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                status = receiver._arrive(body, headers) if self.path == PATH else 404
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        return Handler
