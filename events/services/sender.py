"""One signed POST of one event to one endpoint (docs/design/rules.md, rule 10).

The request goes to an address checked by events.addresses (never a second DNS answer:
`pinned_post`, which the chat channels' webhooks use too), with the Standard Webhooks headers,
no redirect followed and no retry here: the dispatcher decides what a failure means. Nothing of
the response is kept but its status.

One attempt has a total deadline, NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS from its start: resolving,
connecting (TLS included), sending and reading the status line all fit in it, whatever the
receiver does. urllib3's timeouts are per socket operation, so a receiver sending its answer a
byte at a time would never trip them (issue 31: every delivery ran into the task's soft time
limit); a Deadline watchdog shuts the connection's socket down when the time is up, which ends
any read or write in progress, and the attempt is a failure like any other. It learns of each
socket through urllib3's `HTTPConnection._new_conn` (private, urllib3 2.x): should a urllib3
upgrade stop calling it, tests/events/test_sender_deadline.py fails (the drip outlives the
deadline).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import certifi
import urllib3
from django.conf import settings
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.exceptions import HTTPError, NewConnectionError

from events.addresses import AddressRefused, Target, target_resolve
from events.signing import signature

USER_AGENT = "Notiflow-Webhooks/1"


@dataclass(frozen=True)
class PostResult:
    """What one attempt got: the HTTP status, or the error that stopped it, and how long it took."""

    status_code: int | None
    error: str
    duration_ms: int

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def webhook_headers(*, secret: str, message_id: str, body: bytes, now: float) -> dict[str, str]:
    """The headers of a webhook request: JSON, and the Standard Webhooks id, timestamp and
    signature."""
    timestamp = int(now)
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(
            secret, message_id=message_id, timestamp=timestamp, body=body
        ),
    }


class Deadline:
    """A watchdog over one attempt: at `at` (time.monotonic()) it shuts down the socket it
    watches, so a receiver can hold the attempt no longer than that, whatever it sends.

    It watches the socket's file descriptor (the number stays when TLS wraps the socket) and
    acts on a duplicate of it, under a lock that `unwatch` also takes: once the connection may
    be closed, the watchdog can no longer reach the descriptor, nor whatever reuses it."""

    def __init__(self, at: float) -> None:
        self.at = at
        self.fired = False
        self._fd: int | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(0.0, at - time.monotonic()), self._fire)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.unwatch()
        self._timer.cancel()

    @property
    def remaining(self) -> float:
        return self.at - time.monotonic()

    @property
    def passed(self) -> bool:
        return self.fired or self.remaining <= 0

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._fd = sock.fileno()
            if self.fired:  # connected just as the time ran out
                self._shut()

    def unwatch(self) -> None:
        with self._lock:
            self._fd = None

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            self._shut()

    def _shut(self) -> None:
        if self._fd is None:
            return
        try:
            with socket.socket(fileno=os.dup(self._fd)) as duplicate:
                duplicate.shutdown(socket.SHUT_RDWR)
        except OSError:  # not connected (yet, or any more): nothing to stop
            pass


class _Watched:
    """A urllib3 connection that hands each socket it opens to the attempt's Deadline."""

    def __init__(self, *args: Any, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline = deadline

    def _new_conn(self) -> socket.socket:
        sock: socket.socket = super()._new_conn()  # type: ignore[misc]
        self._deadline.watch(sock)
        return sock


class _HTTPConnection(_Watched, HTTPConnection):
    pass


class _HTTPSConnection(_Watched, HTTPSConnection):
    pass


class _HTTPPool(urllib3.HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSPool(urllib3.HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


def _pool(target: Target, address: str, deadline: Deadline) -> urllib3.HTTPConnectionPool:
    # Each socket operation may take what is left of the deadline; the watchdog ends the whole.
    remaining = max(deadline.remaining, 0.001)
    timeout = urllib3.Timeout(connect=remaining, read=remaining)
    if target.scheme == "https":
        return _HTTPSPool(
            address,
            target.port,
            timeout=timeout,
            retries=False,
            server_hostname=target.host,
            assert_hostname=target.host,
            cert_reqs="CERT_REQUIRED",
            ca_certs=certifi.where(),
            deadline=deadline,
        )
    return _HTTPPool(address, target.port, timeout=timeout, retries=False, deadline=deadline)


@dataclass(frozen=True)
class PinnedAnswer:
    """A receiver's answer to a pinned POST: its status, headers and the first bytes of its
    body (as many as the caller asked for)."""

    status: int
    headers: dict[str, str]
    body: bytes

    def header(self, name: str) -> str | None:
        """A header's value, whatever its case."""
        return next((v for k, v in self.headers.items() if k.lower() == name.lower()), None)


class PinnedPostFailed(Exception):
    """A pinned POST got no answer: no address took the connection, the deadline passed, or the
    connection broke; the message says which."""


def pinned_post(
    target: Target,
    *,
    body: bytes,
    headers: Mapping[str, str],
    seconds: float,
    started: float | None = None,
    read_limit: int = 0,
) -> PinnedAnswer:
    """pinned_request with POST."""
    return pinned_request(
        target,
        method="POST",
        body=body,
        headers=headers,
        seconds=seconds,
        started=started,
        read_limit=read_limit,
    )


def pinned_request(
    target: Target,
    *,
    method: str,
    body: bytes | None,
    headers: Mapping[str, str],
    seconds: float,
    started: float | None = None,
    read_limit: int = 0,
) -> PinnedAnswer:
    """`method` with `body` (None: none) to a checked target (events.addresses.target_resolve)
    at the very addresses that were checked, in resolver order, never asking DNS again (so a
    name rebound to a private address in between cannot redirect it), with the URL's host as the Host header and, over
    https, as the TLS server name (SNI) and the name the certificate must carry. No redirect is
    followed and there is no retry. Everything, the first `read_limit` bytes of the body
    included, fits within `seconds` of `started` (time.monotonic(); default now): the Deadline
    watchdog. PinnedPostFailed when no answer came."""
    started = time.monotonic() if started is None else started
    headers = {**headers, "Host": target.host_header}
    error = "no address to connect to"
    with Deadline(started + seconds) as deadline:
        for address in target.addresses:
            if deadline.passed:
                break
            pool = _pool(target, address, deadline)
            try:
                response = pool.urlopen(
                    method,
                    target.path,
                    body=body,
                    headers=headers,
                    redirect=False,
                    assert_same_host=False,
                    preload_content=False,
                )
                content = response.read(read_limit) if read_limit else b""
                answer = PinnedAnswer(response.status, dict(response.headers), content)
                if deadline.fired:  # the watchdog cut it: what was read is not the whole answer
                    raise PinnedPostFailed(
                        f"timed out: no complete answer within the {seconds:g} s deadline"
                    )
                deadline.unwatch()
                response.close()
                return answer
            except NewConnectionError as exc:
                error = f"could not connect to {address}: {exc}"  # the next address, if any
            except HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}"
                if not deadline.passed:
                    raise PinnedPostFailed(error) from exc
            finally:
                deadline.unwatch()
                pool.close()
        if deadline.passed:
            raise PinnedPostFailed(
                f"timed out: no complete answer within the {seconds:g} s deadline"
            )
    raise PinnedPostFailed(error)


def post_signed(*, url: str, secret: str, message_id: str, body: bytes) -> PostResult:
    """POST `body` to `url`, signed with `secret` as message `message_id`. Returns within
    NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS of its call (plus the time a DNS answer takes), with the
    status the receiver answered or the error that stopped the attempt; never raises for
    anything the receiver does."""
    started = time.monotonic()
    seconds = settings.NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS

    def result(status_code: int | None, error: str = "") -> PostResult:
        return PostResult(status_code, error[:1000], int((time.monotonic() - started) * 1000))

    try:
        target = target_resolve(url)
    except AddressRefused as exc:
        return result(None, f"refused: {exc}")
    headers = webhook_headers(secret=secret, message_id=message_id, body=body, now=time.time())
    try:
        answer = pinned_post(target, body=body, headers=headers, seconds=seconds, started=started)
    except PinnedPostFailed as exc:
        return result(None, str(exc))
    return result(answer.status)  # the body is not read: only the status counts
