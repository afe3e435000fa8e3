"""Rate limits per API key (docs/security/keys.md, "Rate limits"), shared by every web process through
Redis at NOTIFLOW_CACHE_URL.

Each key has one bucket per scope: the requests to `trigger` endpoints count against
NOTIFLOW_RATE_LIMIT_TRIGGER [100/s], those to `admin` endpoints against
NOTIFLOW_RATE_LIMIT_ADMIN [20/s] (common/scopes.py says which endpoint needs which). A rate
`N/period` allows a burst of N and then one request every period/N: the generic cell rate
algorithm, kept in Redis as one number per bucket (the time at which the bucket would be empty)
and updated by one Lua script, so that the check and the count are one atomic step and one
round trip. DRF's SimpleRateThrottle reads a list from the cache and writes it back, so N
concurrent requests from one key in N processes could all pass; here they cannot
(tests/security/test_rate_limits.py sends 20 at once against a limit of 5).

The time is Redis's (TIME inside the script), so web hosts with different clocks share one
bucket correctly. When Redis does not answer, requests are served unthrottled (fail open) and a
warning is logged; the process then leaves Redis alone for a few seconds, so an outage costs each
process one timeout per FAIL_OPEN_SECONDS, not one per request.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

import redis
from django.conf import settings
from rest_framework import exceptions
from rest_framework.throttling import BaseThrottle

from common.scopes import ADMIN, TRIGGER, required_scope

logger = logging.getLogger("notiflow.throttling")  # the name operators filter on

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# How long a web process serves unthrottled after Redis failed to answer, before trying again.
FAIL_OPEN_SECONDS = 5.0
# Connecting to and answering from Redis: a request waits at most this for its rate limit.
REDIS_TIMEOUT_SECONDS = 0.5

# The one GCRA script of the project (common/gcra.lua states its keys, arguments and modes):
# this module asks or takes; the providers' limits (workers/services/provider_rates.py) reserve.
GCRA_SCRIPT = (Path(__file__).parent / "gcra.lua").read_text()


def parse_rate(rate: str) -> tuple[int, int] | None:
    """`100/s` -> (100, 1); `5/m`, `3600/h`, `1000/d` (the period's first letter counts, as in
    DRF: `10/min`). Empty, `off` or `0/…`: None, no limit. ValueError otherwise."""
    rate = rate.strip().lower()
    if rate in ("", "off", "none"):
        return None
    number, _, period = rate.partition("/")
    try:
        count = int(number)
        seconds = PERIODS[period.strip()[:1]]
    except (ValueError, KeyError):
        raise ValueError(f"a rate limit is N/s, N/m, N/h or N/d, or off (not {rate!r})") from None
    if count < 0:
        raise ValueError(f"a rate limit cannot be negative ({rate!r})")
    return (count, seconds) if count else None


@lru_cache(maxsize=2)
def _script(url: str) -> Any:
    client = redis.Redis.from_url(
        url, socket_connect_timeout=REDIS_TIMEOUT_SECONDS, socket_timeout=REDIS_TIMEOUT_SECONDS
    )
    return client.register_script(GCRA_SCRIPT)


class _FailOpen:
    """When this process last found Redis unreachable; until when it does not ask again."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.until = 0.0

    def skipping(self) -> bool:
        return time.monotonic() < self.until

    def failed(self, exc: BaseException) -> None:
        with self.lock:
            if self.skipping():
                return
            self.until = time.monotonic() + FAIL_OPEN_SECONDS
        logger.warning(
            "rate limits are off for %ss in this process: Redis at NOTIFLOW_CACHE_URL did not "
            "answer (%s: %s); requests are served unthrottled",
            FAIL_OPEN_SECONDS,
            type(exc).__name__,
            exc,
        )


FAIL_OPEN = _FailOpen()


def _gcra(*, bucket: str, limit: tuple[int, int], mode: str, cost: int = 1) -> float:
    """The GCRA script's answer in `mode` (common/gcra.lua), in seconds; 0 while Redis does not
    answer (fail open, logged)."""
    if FAIL_OPEN.skipping():
        return 0.0
    count, period = limit
    try:
        wait_ms = int(
            _script(settings.NOTIFLOW_CACHE_URL)(
                keys=[bucket], args=[period * 1000 / count, period * 1000, mode, cost]
            )
        )
    except (redis.RedisError, OSError) as exc:
        FAIL_OPEN.failed(exc)
        return 0.0
    return max(0, wait_ms) / 1000


def bucket_wait(*, bucket: str, limit: tuple[int, int], cost: int = 1) -> float:
    """Seconds until `bucket` (at `limit`, (count, period)) lets one more request pass; 0 when
    it may now, and then the request is counted (as `cost` requests), in the same atomic step."""
    return _gcra(bucket=bucket, limit=limit, mode="take", cost=cost)


def bucket_give(*, bucket: str, limit: tuple[int, int]) -> None:
    """Uncount one request `bucket_wait` counted in `bucket`."""
    _gcra(bucket=bucket, limit=limit, mode="give")


def rate_for(scope: str) -> str:
    return {
        TRIGGER: settings.NOTIFLOW_RATE_LIMIT_TRIGGER,
        ADMIN: settings.NOTIFLOW_RATE_LIMIT_ADMIN,
    }[scope]


class ApiKeyRateThrottle(BaseThrottle):
    """The default throttle (REST_FRAMEWORK): the request's API key, in the bucket of the scope
    its endpoint needs. Requests without a key (health, schema, docs) are not counted. Over the
    limit: 429 with Retry-After (whole seconds, at least 1) and `{"detail": ...}`."""

    def allow_request(self, request: Any, view: Any) -> bool:
        api_key = request.auth
        if api_key is None:
            return True
        scope = required_scope(view, request.method)
        rate = rate_for(scope)
        limit = parse_rate(rate)  # read at request time, so override_settings applies
        if limit is None:
            return True
        _charge(api_key, scope, rate, limit, cost=1)
        return True


def trigger_rate_charge(*, api_key: Any, runs: int) -> None:
    """Count a fan-out's `runs` against the key's `trigger` rate (`trigger_rate_take`); the
    request that starts the fan-out was counted already. Throttled (429, nothing charged) when
    the bucket does not let one more request pass: a key cannot start fan-outs faster than its
    rate allows their runs (docs/security/findings.md, "Fan-outs")."""
    seconds = trigger_rate_take(key_hash=api_key.key_hash, runs=runs)
    if seconds:
        raise _throttled(TRIGGER, rate_for(TRIGGER), seconds)


def trigger_rate_take(*, key_hash: str, runs: int) -> float | None:
    """Charge `runs` to the `trigger` bucket of the key whose hash is `key_hash`, as many
    requests, in debt: when the bucket lets one more request pass, it takes them all (0 is
    returned) and the key's next `trigger` requests wait until it has caught up; otherwise
    nothing is charged and the answer is the seconds until it lets one pass. The one charge of
    an audience's runs: a fan-out's request (`trigger_rate_charge`) and each occurrence of a
    topic schedule (schedules/admission.py). None, nothing charged, without a limit or runs; 0
    while Redis does not answer (fail open)."""
    limit = parse_rate(rate_for(TRIGGER))
    if limit is None or runs <= 0:
        return None
    return bucket_wait(bucket=_bucket(TRIGGER, key_hash), limit=limit, cost=runs)


def _bucket(scope: str, key_hash: str) -> str:
    return f"notiflow:rate:{scope}:{key_hash[:32]}"


def _charge(api_key: Any, scope: str, rate: str, limit: tuple[int, int], *, cost: int) -> None:
    seconds = bucket_wait(bucket=_bucket(scope, api_key.key_hash), limit=limit, cost=cost)
    if seconds > 0:
        raise _throttled(scope, rate, seconds)


def _throttled(scope: str, rate: str, seconds: float) -> exceptions.Throttled:
    return exceptions.Throttled(
        wait=max(1, math.ceil(seconds)),
        # DRF adds "Expected available in N seconds."
        detail=f"rate limit of {rate.strip()} for this API key's {scope} requests exceeded.",
    )
