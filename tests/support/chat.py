"""Slack and Microsoft Teams on loopback, speaking their protocols, whose answer depends on the
address (a channel id, a webhook path), as the SMTP sink's depends on the recipient.

Slack's Web API, `POST /api/chat.postMessage` (JSON or form body), with the bot token in
`Authorization: Bearer ...`; a missing or wrong one answers `{"ok": false, "error":
"invalid_auth"}` (HTTP 200, as Slack does). By channel id:

C-RATE1-...   the first request 429 with `Retry-After: 1` (`ratelimited`), then accepted
C-FAIL2-...   500 for the first two requests, then accepted
C-GONE-...    `{"ok": false, "error": "channel_not_found"}`
anything else accepted: `{"ok": true, "channel", "ts", "message"}`

Slack's incoming webhooks, `POST /slack/<rule>/...`, and Teams' webhooks, `POST /teams/<rule>/...`
(a JSON body each), by the path's first segment after the service:

ok        accepted (Slack: 200 `ok`; Teams: 202, as a Workflows URL answers)
rate1     the first request 429 with `Retry-After: 1`, then accepted
fail2     500 for the first two requests, then accepted
gone      404 (Slack: `no_service`)
redirect  302 to /slack/ok/redirected (a sender must not follow it; a GET is recorded too)
invalid   400 (Slack: `invalid_blocks`)
legacy429 Teams only: 200 with a legacy connector's error text about a 429

Requests are counted per path and channel, and recorded (path, headers, JSON body) on arrival.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

from tests.support.serving import serving_thread

BOT_TOKEN = "xoxb-notiflow-test"


@dataclass(frozen=True)
class ChatRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def channel(self) -> str:
        return str(self.body.get("channel", ""))


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any  # a dict is sent as JSON, a str as text
    headers: tuple[tuple[str, str], ...] = ()


def _rule_answer(rule: str, seen: int, *, ok: Answer, refusals: dict[str, Answer]) -> Answer:
    if rule == "rate1" and seen == 1:
        return Answer(429, refusals["rate"].body, (("Retry-After", "1"),))
    if rule == "fail2" and seen <= 2:
        return Answer(500, refusals["fail"].body)
    return refusals.get(rule, ok)


class ChatServer:
    def __init__(self, token: str = BOT_TOKEN) -> None:
        self.token = token
        self.requests: list[ChatRequest] = []
        self.counts: Counter[tuple[str, str]] = Counter()
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = serving_thread(self.server)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def slack_api_url(self) -> str:
        return f"{self.base}/api/"

    def url(self, path: str) -> str:
        return f"{self.base}/{path.lstrip('/')}"

    def start(self) -> ChatServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def received(self, *, path: str = "/", channel: str | None = None) -> list[ChatRequest]:
        with self.lock:
            return [
                r
                for r in self.requests
                if r.path.startswith(path) and (channel is None or r.channel == channel)
            ]

    def wait_for(
        self, *, path: str = "/", channel: str | None = None, count: int = 1, timeout: float = 30
    ) -> list[ChatRequest]:
        """The matching requests once there are at least `count`; AssertionError at `timeout`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.received(path=path, channel=channel)
            if len(got) >= count:
                return got
            time.sleep(0.05)
        raise AssertionError(f"{len(self.received(path=path, channel=channel))} of {count}")

    def answer(self, request: ChatRequest) -> Answer:
        with self.lock:
            self.requests.append(request)
            self.counts[(request.path, request.channel)] += 1
            seen = self.counts[(request.path, request.channel)]
        service, _, rest = request.path.strip("/").partition("/")
        rule = rest.split("/", 1)[0]
        if service == "api":
            return self._slack_api(request, seen)
        if service == "slack":
            if rule == "redirect":
                return Answer(302, "", (("Location", "/slack/ok/redirected"),))
            refusals = {
                "rate": Answer(429, "rate_limited"),
                "fail": Answer(500, "internal error"),
                "gone": Answer(404, "no_service"),
                "invalid": Answer(400, "invalid_blocks"),
            }
            return _rule_answer(rule, seen, ok=Answer(200, "ok"), refusals=refusals)
        if service == "teams":
            refusals = {
                "rate": Answer(429, "Too many requests"),
                "fail": Answer(500, "internal error"),
                "gone": Answer(404, "Not found"),
                "invalid": Answer(400, "Bad payload"),
                "legacy429": Answer(
                    200, "Microsoft Teams endpoint returned HTTP error 429 with ContextId x"
                ),
            }
            return _rule_answer(rule, seen, ok=Answer(202, ""), refusals=refusals)
        return Answer(404, "unknown path")

    def _slack_api(self, request: ChatRequest, seen: int) -> Answer:
        if request.path != "/api/chat.postMessage":
            return Answer(200, {"ok": False, "error": "unknown_method"})
        if request.headers.get("authorization") != f"Bearer {self.token}":
            return Answer(200, {"ok": False, "error": "invalid_auth"})
        channel = request.channel
        rule = channel.split("-")[1].lower() if channel.startswith("C-") else "ok"
        sent = {
            "ok": True,
            "channel": channel,
            "ts": f"{1700000000 + seen}.000100",
            "message": {"text": request.body.get("text", "")},
        }
        refusals = {
            "rate": Answer(429, {"ok": False, "error": "ratelimited"}),
            "fail": Answer(500, {"ok": False, "error": "internal_error"}),
            "gone": Answer(200, {"ok": False, "error": "channel_not_found"}),
        }
        return _rule_answer(rule, seen, ok=Answer(200, sent), refusals=refusals)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        chat = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                answer = chat.answer(ChatRequest(self.path, headers, _body(headers, raw)))
                payload = answer.body if isinstance(answer.body, str) else json.dumps(answer.body)
                data = payload.encode()
                self.send_response(answer.status)
                kind = "text/plain" if isinstance(answer.body, str) else "application/json"
                self.send_header("Content-Type", f"{kind}; charset=utf-8")
                for name, value in answer.headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                with chat.lock:
                    chat.requests.append(ChatRequest(self.path, headers, {"method": "GET"}))
                self.send_response(405)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


def _body(headers: dict[str, str], raw: bytes) -> dict[str, Any]:
    """A JSON body, or a form's fields (slack_sdk sends some methods as forms)."""
    if headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        return {k: v[0] for k, v in parse_qs(raw.decode()).items()}
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        return {"unparsed": raw.decode(errors="replace")}
    return body if isinstance(body, dict) else {"json": body}
