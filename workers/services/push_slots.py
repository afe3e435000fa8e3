"""Web push requests hold at most NOTIFLOW_PUSH_CONCURRENCY of a Celery worker's slots
(docs/security/providers.md, "Web push endpoints").

A web push goes to an address a recipient supplied, which may take the whole deadline to answer
(issue 43: eight endpoints dripping their status line held every slot of the engine, and a plain
email waited 14 s). Each request first takes one of its worker's push slots, a sorted set in
Redis at NOTIFLOW_REDIS_URL keyed by the worker's name, each member scored by the moment its
request's deadline has surely passed (so a slot whose worker died frees itself). No slot free:
RateLimited, the step is put back (no attempt) until about when the first slot's request must
have ended (spread over the second half of that wait, so that the steps put back do not all come
back at once and queue before other steps), and the worker's slot goes to other steps meanwhile. When Redis does not answer, the push waits
for it like any transient failure.
"""

from __future__ import annotations

import random
import socket
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import redis
from celery import current_task
from django.conf import settings

from workers.errors import RateLimited, TransientError

TAKE_SCRIPT = (Path(__file__).parent / "push_slots.lua").read_text()
# Past the request's deadline: the DNS answer before it, and the close after it.
MARGIN_SECONDS = 1.0


@lru_cache(maxsize=2)
def _clients(url: str) -> tuple[Any, Any]:
    """The Redis client and the slot script registered on it (sent by its hash: EVALSHA)."""
    timeout = settings.CELERY_BROKER_CONNECTION_TIMEOUT
    client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    return client, client.register_script(TAKE_SCRIPT)


def _worker_name() -> str:
    """The Celery worker this process serves (its pool's processes share its slots); outside a
    task (tests, a shell), the host."""
    request = getattr(current_task, "request", None)
    return str(getattr(request, "hostname", None) or socket.gethostname())


@contextmanager
def push_slot(provider: str) -> Iterator[None]:
    """Hold one of this worker's push slots for the request inside; RateLimited when none is
    free, TransientError when Redis does not answer."""
    client, take = _clients(settings.NOTIFLOW_REDIS_URL)
    key = f"notiflow:push-slots:{_worker_name()}"
    member = uuid.uuid4().hex
    hold_ms = int((settings.NOTIFLOW_PUSH_TIMEOUT_SECONDS + MARGIN_SECONDS) * 1000)
    try:
        wait_ms = int(take(keys=[key], args=[settings.NOTIFLOW_PUSH_CONCURRENCY, member, hold_ms]))
    except redis.RedisError as exc:
        raise TransientError(f"{provider}: push slots unavailable: {type(exc).__name__}") from exc
    if wait_ms > 0:
        raise RateLimited(provider, timedelta(milliseconds=wait_ms * random.uniform(0.5, 1.0)))
    try:
        yield
    finally:
        with suppress(redis.RedisError):  # unreleased, it frees itself at its deadline
            client.zrem(key, member)
