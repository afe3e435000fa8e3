"""A per-process cache of a small table that changes rarely, invalidated by a generation
(docs/translations.md, "Caching"; docs/tenants.md): the translation catalogs and the tenants.

How a change reaches every process: every change writes a row of an append-only change log
whose id only grows, in the transaction that makes it, under the log's lock (`changes_in_order`):
the ids then commit in the order they were given, so a process that saw id N has seen every change
below it. (Without it, a change given id N-1 that commits after N is never seen: the largest id
stays N.) A process that used its copy more than RECHECK_SECONDS
ago asks for the largest id (one index-only statement) before it uses the copy again, and loads
the whole table afresh when that id is not the one it holds. A use within RECHECK_SECONDS of
the last check asks nothing. The process that made the change calls `forget()`, and asks at
its next use.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from django.db import connection

T = TypeVar("T")

# At most this long between a change's commit and its use by every process (well under a second).
RECHECK_SECONDS = 0.4


class GenerationCache(Generic[T]):
    """`load()`'s value as of the latest `generation()` seen (the change log's largest id)."""

    def __init__(
        self,
        *,
        generation: Callable[[], int | None],
        load: Callable[[], T],
        empty: T,
        recheck_seconds: float = RECHECK_SECONDS,
    ) -> None:
        self._generation_of = generation
        self._load = load
        self._recheck = recheck_seconds
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._checked_at = -math.inf
        self._value = empty

    def value(self) -> T:
        if time.monotonic() - self._checked_at < self._recheck:
            return self._value
        with self._lock:
            if time.monotonic() - self._checked_at >= self._recheck:
                # The generation first: a change committed after it is seen at the next check.
                latest = self._generation_of()
                if latest != self._generation:
                    self._value = self._load()
                    self._generation = latest
                self._checked_at = time.monotonic()
        return self._value

    def forget(self) -> None:
        """Ask the database again at the next use (after this process changed the table, or
        when a value it does not hold may have been made by another process just now)."""
        self._checked_at = -math.inf


def changes_in_order(lock_key: int) -> None:
    """Hold the change log's lock (`pg_advisory_xact_lock(lock_key)`, one key per log) until the
    transaction ends. Call it before the change writes its log row: the change logs' ids then
    commit in the order they are given, which is what the largest id as a generation needs."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [lock_key])
