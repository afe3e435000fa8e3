"""Rate limits per provider (docs/design/channels.md, "Providers"): `NOTIFLOW_PROVIDER_RATE_LIMITS`
(`ses=14/s,twilio=100/m`), one limit shared by every worker on every host, kept in Redis at
NOTIFLOW_REDIS_URL and taken by the project's one GCRA script, common/gcra.lua, in its
`reserve` mode (atomic, one round trip, Redis's clock).

A send that finds no token does not ask again and again: the script *reserves* the next free
slot for it (a token bucket of `count` tokens refilled at count/period, kept as the time at which
it would be full, as in common/throttling.py) and remembers the reservation under the send's
idempotency key. The step is put back for that moment, not failed and not counted as an attempt;
when it is claimed again it finds its reservation due and sends without taking another. So N
sends over the limit cost N claims more, whatever N, and leave in the limit's order.

A reservation whose step never comes back (its worker died, the trigger was cancelled) is a token
lost: the limit errs on the slow side. When Redis does not answer, the send waits for it like any
transient failure (a retry), rather than exceeding a provider's limit.
"""

from __future__ import annotations

from datetime import timedelta
from functools import lru_cache
from typing import Any

import redis
from django.conf import settings

from common.throttling import GCRA_SCRIPT
from workers.errors import TransientError
from workers.providers import Provider


@lru_cache(maxsize=2)
def _script(url: str) -> Any:
    timeout = settings.CELERY_BROKER_CONNECTION_TIMEOUT
    client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    return client.register_script(GCRA_SCRIPT)


def provider_token_take(provider: Provider, *, idempotency_key: str) -> timedelta | None:
    """Take `provider`'s token for this send: None when it may go now, else how long until its
    reserved slot. Free (no Redis call) for a provider without a limit. Raises TransientError
    when Redis does not answer."""
    if provider.rate is None:
        return None
    count, period = provider.rate
    interval_ms = period * 1000 / count
    keys = [
        f"notiflow:provider-rate:{provider.name}",
        f"notiflow:provider-rate:{provider.name}:slot:{idempotency_key}",
    ]
    try:
        wait_ms = int(
            _script(settings.NOTIFLOW_REDIS_URL)(
                keys=keys, args=[interval_ms, period * 1000, "reserve"]
            )
        )
    except redis.RedisError as exc:
        raise TransientError(
            f"provider {provider.name!r} rate limit unavailable: {type(exc).__name__}: {exc}"
        ) from exc
    return timedelta(milliseconds=wait_ms) if wait_ms > 0 else None
