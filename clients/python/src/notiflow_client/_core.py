"""What the sync and the async client share, free of I/O: a call described once (`Call`), its
tries (`Attempts`: the request, its answer decoded or turned into the error of its outcome, and
the retry rule), and the HTTP client's options (`Settings.http_options`). The clients differ
only in how they send and wait.

The retry rule (`retry_delay`): a connection error or a timeout, a 5xx (503 included: no live
worker serves the queue yet) are retried with exponential back-off and jitter; a 429 after its
`Retry-After`; any other 4xx never. A call is sent as the same bytes on every attempt, so a
trigger's idempotency key, made once when the caller gave none, is the same on each: a retry
after a lost answer finds the run the first attempt made (200) rather than making another."""

from __future__ import annotations

import os
import platform
import random
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Generic, TypeVar
from urllib.parse import quote

import httpx

from ._version import __version__
from .errors import ConnectionFailed, NotiflowError, RateLimited, ServerError, error_for

T = TypeVar("T")

# Back-off before retry n (from 0): BACKOFF_BASE * 2**n, at most BACKOFF_MAX, each between half
# and all of that (jitter, so clients that failed together do not retry together).
BACKOFF_BASE = 0.5
BACKOFF_MAX = 8.0
# A 429 asking for a longer wait than this is raised at once: the caller decides.
RETRY_AFTER_MAX = 60.0
USER_AGENT = f"notiflow-client/{__version__} python/{platform.python_version()}"


@dataclass(frozen=True)
class Call(Generic[T]):
    """One API call: method, path under the base URL, body and query, and `parse`, which turns
    the decoded answer (None for 204) into what the method returns. `idempotency_key` goes out
    as the `Idempotency-Key` header; `extra_timeout` is added to the client's timeout (a call
    the server may hold open, `?wait=`)."""

    method: str
    path: str
    parse: Callable[[Any], T]
    json: Any = None
    params: Mapping[str, Any] | None = None
    idempotency_key: str | None = None
    extra_timeout: float = 0.0


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list, and the call for the next (None on the last)."""

    items: list[T]
    next: Call[Page[T]] | None


@dataclass(frozen=True)
class Settings:
    """A client's settings, the environment filling what the caller left out."""

    base_url: str
    api_key: str
    timeout: float
    retries: int

    @classmethod
    def resolve(
        cls, base_url: str | None, api_key: str | None, timeout: float, retries: int
    ) -> Settings:
        url = base_url or os.environ.get("NOTIFLOW_URL", "")
        key = api_key or os.environ.get("NOTIFLOW_API_KEY", "")
        if not url:
            raise ValueError("no Notiflow URL: pass base_url or set NOTIFLOW_URL")
        if not key:
            raise ValueError("no API key: pass api_key or set NOTIFLOW_API_KEY")
        if retries < 0:
            raise ValueError("retries must be 0 or more")
        return cls(url.rstrip("/"), key, float(timeout), retries)

    def http_options(self) -> dict[str, Any]:
        """httpx.Client's (or AsyncClient's) keywords: the base URL, the headers, the timeout."""
        headers = {
            "Authorization": f"Bearer {self.api_key}",
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
        }
        return {"base_url": self.base_url, "headers": headers, "timeout": self.timeout}


def new_idempotency_key() -> str:
    """A key for a call whose caller gave none: random, made once per call."""
    return str(uuid.uuid4())


def request_build(
    client: httpx.Client | httpx.AsyncClient, settings: Settings, call: Call[Any]
) -> httpx.Request:
    """The request of `call`, built once and sent as is on every attempt."""
    headers = {"Idempotency-Key": call.idempotency_key} if call.idempotency_key else {}
    params = {name: value for name, value in (call.params or {}).items() if value is not None}
    return client.build_request(
        call.method,
        call.path,
        json=call.json,
        params=params,
        headers=headers,
        timeout=settings.timeout + call.extra_timeout,
    )


class Attempts(Generic[T]):
    """The tries of one call, free of I/O: the request to send (built once, sent as is on every
    try), what an answer becomes, and after a failure how long to wait before the next try.
    The sync and the async client each only send and wait:

        attempts = Attempts(http, settings, call)
        while True:
            try:
                return attempts.answer(http.send(attempts.request))
            except (httpx.TransportError, NotiflowError) as failure:
                time.sleep(attempts.delay_after(failure))
    """

    def __init__(
        self, client: httpx.Client | httpx.AsyncClient, settings: Settings, call: Call[T]
    ) -> None:
        self.call = call
        self.request = request_build(client, settings, call)
        self._retries = settings.retries
        self._attempt = 0

    def answer(self, response: httpx.Response) -> T:
        """What the call returns for `response`, or the error of its outcome, raised."""
        return answer(self.call, response)

    def delay_after(self, failure: httpx.TransportError | NotiflowError) -> float:
        """Seconds to wait before trying again after `failure` (the connection's, or the error
        of an answer); the error is raised when there is no next try (retry_delay)."""
        cause: Exception | None = None
        if isinstance(failure, httpx.TransportError):
            error: NotiflowError = connection_failed(failure, self.request)
            cause = failure
        else:
            error = failure
        delay = retry_delay(error, self._attempt, self._retries)
        if delay is None:
            raise error from cause
        self._attempt += 1
        return delay


def answer(call: Call[T], response: httpx.Response) -> T:
    """What `call` returns for `response`, or the error of its outcome, raised."""
    body = _decoded(response)
    if response.is_success:
        return call.parse(body)
    error = error_for(response.status_code, body)
    if isinstance(error, RateLimited):
        error.retry_after = _seconds(response.headers.get("Retry-After"))
    raise error


def connection_failed(failure: httpx.TransportError, request: httpx.Request) -> ConnectionFailed:
    return ConnectionFailed(f"{request.method} {request.url}: {type(failure).__name__}: {failure}")


def retry_delay(error: NotiflowError, attempt: int, retries: int) -> float | None:
    """Seconds to wait before trying again after `error` on attempt `attempt` (from 0), or None:
    raise it. Never a 4xx but 429."""
    if attempt >= retries:
        return None
    if isinstance(error, RateLimited):
        if error.retry_after is None:
            return _backoff(attempt)
        return error.retry_after if error.retry_after <= RETRY_AFTER_MAX else None
    if isinstance(error, (ServerError, ConnectionFailed)):
        return _backoff(attempt)
    return None


def _backoff(attempt: int) -> float:
    ceiling = min(BACKOFF_MAX, BACKOFF_BASE * 2.0**attempt)
    return ceiling * random.uniform(0.5, 1.0)


def _decoded(response: httpx.Response) -> Any:
    if response.status_code == 204 or not response.content:
        return None
    try:
        return response.json()
    except ValueError:  # not JSON (a proxy's error page): the status says it all
        return None


def _seconds(value: str | None) -> float | None:
    """Retry-After in seconds (the API sends a number; an HTTP date is not waited for)."""
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def quoted(segment: object) -> str:
    """One path segment, escaped whole (a recipient id may hold `?`, `#`, `%` or a space)."""
    return quote(str(segment), safe="")
