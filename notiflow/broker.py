"""The broker transport: kombu's Redis transport, without a new redis-py client per command.

kombu's Redis channel builds a fresh `redis.Redis` for every command it sends outside its event
loop (`Channel.conn_or_acquire`), the publish of every nudge included; redis-py fills a table of
some 170 response callbacks in each constructor. That was a quarter of a publish's CPU: 0.14 ms
of 0.6 ms, paid by every intake request and every engine step (BENCHMARKS.md). This channel keeps
one client per connection pool instead. A redis-py client is only a front for its pool (which is
thread-safe and hands each command a connection of its own), so sharing it changes nothing else;
when kombu replaces the pool (after a fork, or a reconnect), the client is made anew with it.

Selected by CELERY_BROKER_TRANSPORT (settings.py) for `redis://` broker URLs, so the web
process, the workers, beat and the bench's plain Celery baseline all use it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kombu.transport import redis as kombu_redis


class Channel(kombu_redis.Channel):
    _sync_client: Any = None

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        if client:
            yield client
            return
        pool = self.pool
        cached = self._sync_client
        if cached is None or cached.connection_pool is not pool:
            cached = self._sync_client = self._create_client()  # type: ignore[attr-defined]  # (kombu, not in the stubs)
        yield cached


class Transport(kombu_redis.Transport):
    Channel = Channel
