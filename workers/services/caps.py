"""Send caps (docs/security/content.md): how many messages one recipient may receive, and one API key
(or other creator) may have sent, per hour, across every worker. Off unless configured.

Counted in Redis, one INCR per counter in the hour's window (a pipeline: one round trip per
send, and none at all while no cap is set). A send over a cap is refused before the provider
is called, and the step fails permanently saying which cap: a cap is a policy, not a fault
that waiting would cure. The refused attempt still counts, so hammering a cap does not reopen
it.

The hour is the database's (`at`: the step's clock, engine.StepClock), never the worker's: every
worker must count into the same window key, and the database's is the one clock of every other
due time (docs/design/rules.md, rule 15). Redis's own TIME would agree across workers too, but it
would take a second round trip (or a script) per send and a second clock to reason about.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

import redis
from django.conf import settings

WINDOW_SECONDS = 3600


@lru_cache(maxsize=2)
def _client(url: str) -> redis.Redis:
    timeout = settings.CELERY_BROKER_CONNECTION_TIMEOUT
    return redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)


def _key(kind: str, value: str, window: int) -> str:
    digest = hashlib.sha256(value.strip().lower().encode()).hexdigest()[:32]
    return f"notiflow:cap:{kind}:{digest}:{window}"


@dataclass(frozen=True)
class CapReached:
    """A send refused by a cap: whose (`who`: `recipient <address>` or the creator), which
    cap, on which channel, and the count this send reached."""

    who: str
    cap: int
    channel: str
    count: int

    def __str__(self) -> str:
        return f"send cap: {self.who} reached {self.cap} {self.channel} messages this hour"

    def evidence(self) -> dict[str, Any]:
        return {"who": self.who, "cap": self.cap, "channel": self.channel, "count": self.count}


def send_caps_take(
    *, channel: str, recipients: list[str], created_by: str, at: datetime
) -> CapReached | None:
    """Count this send, made at `at` on the database's clock, against the caps of that hour;
    the cap that refuses it, or None when it may go.

    Raises redis's errors when the counters cannot be reached (the step is then retried like
    any transient failure: a cap that cannot be checked is not silently skipped).
    """
    per_recipient = settings.NOTIFLOW_SEND_CAP_PER_RECIPIENT
    per_creator = settings.NOTIFLOW_SEND_CAP_PER_CREATOR
    if not per_recipient and not per_creator:
        return None
    window = int(at.timestamp()) // WINDOW_SECONDS
    counters: list[tuple[str, str, int]] = []
    if per_recipient:
        counters += [
            (_key(f"{channel}-to", r, window), f"recipient {r}", per_recipient) for r in recipients
        ]
    if per_creator and created_by:
        counters.append((_key("by", created_by, window), created_by, per_creator))
    pipe = _client(settings.NOTIFLOW_REDIS_URL).pipeline(transaction=False)
    for key, _, _ in counters:
        pipe.incr(key)
        pipe.expire(key, WINDOW_SECONDS * 2)
    counts = pipe.execute()[::2]
    for (_, who, cap), count in zip(counters, counts, strict=True):
        if int(count) > cap:
            return CapReached(who, cap, channel, int(count))
    return None


def send_caps_peek(*, channel: str, recipients: list[str], at: datetime) -> CapReached | None:
    """The per-recipient cap that a send to `recipients` at `at` would meet, without counting
    it (a person's dry run: deliveries.explain); None when it would go. A send's creator is not
    known before it is triggered: its cap is not asked. Raises redis's errors as send_caps_take."""
    cap = settings.NOTIFLOW_SEND_CAP_PER_RECIPIENT
    if not cap or not recipients:
        return None
    window = int(at.timestamp()) // WINDOW_SECONDS
    keys = [_key(f"{channel}-to", r, window) for r in recipients]
    counts = _client(settings.NOTIFLOW_REDIS_URL).mget(keys)
    for recipient, count in zip(recipients, counts, strict=True):
        if count is not None and int(count) >= cap:
            return CapReached(f"recipient {recipient}", cap, channel, int(count))
    return None
