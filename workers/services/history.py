"""The step log's partitions (workers migration 0014; docs/reliability/index.md, "Step logs by
partition"): created ahead of time by beat, dropped whole by retention.

The step log is partitioned by its run's creation time, `NOTIFLOW_STEP_LOG_PARTITION_DAYS` a
partition. Beat's hourly `workers.step_log_partitions` keeps them created
`NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS` ahead. After retention's batches have deleted the runs,
`step_log_partitions_drop` drops each partition past the cutoff that no run is left in: a day of
step logs goes in one DROP TABLE instead of a DELETE per row.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from workers.sql import (
    STEP_LOG_DROP_SQL,
    STEP_LOG_DROPPABLE_SQL,
    STEP_LOG_DROPPING_BELOW_SQL,
    STEP_LOG_HORIZON_SQL,
    STEP_LOG_PARTITIONS_SQL,
)

logger = logging.getLogger(__name__)

# How long a partition's creation or drop waits for the step log's lock (both take it whole for a
# moment) behind a long reader, before giving up until the next run: never a queue of the
# workers' step logs waiting behind it.
LOCK_TIMEOUT = "2s"
# The SQLSTATEs of a partition that is busy: its lock not had in time (lock_not_available), or a
# transaction of this session with checks pending on it (object_in_use).
BUSY = frozenset({"55P03", "55006"})


@dataclass(frozen=True)
class Dropped:
    partition: str
    rows: int


def step_log_partitions_ensure(*, now: datetime | None = None) -> list[str]:
    """Create the step log's partitions up to NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS after
    `now`; the names of those created (none when they exist)."""
    upto = (now or timezone.now()) + timedelta(
        days=settings.NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS
    )
    with transaction.atomic(), connection.cursor() as cursor:
        _lock_timeout(cursor)
        cursor.execute(
            STEP_LOG_PARTITIONS_SQL,
            {"upto": upto, "span": settings.NOTIFLOW_STEP_LOG_PARTITION_DAYS},
        )
        return [name for (name,) in cursor.fetchall()]


def step_log_horizon() -> datetime | None:
    """The upper bound of the last partition: a run created after it could not log its steps."""
    with connection.cursor() as cursor:
        cursor.execute(STEP_LOG_HORIZON_SQL)
        return cursor.fetchone()[0]


def step_log_ahead(horizon: datetime | None) -> timedelta:
    """How far past now `horizon` (step_log_horizon) reaches; nothing without a partition."""
    return horizon - timezone.now() if horizon else timedelta(0)


def step_log_dropping_below(cutoff: datetime) -> datetime | None:
    """Where the partitions that a purge of finished runs up to `cutoff` will drop end: its
    batches leave the step logs of runs created before it to the drop (None: none)."""
    with connection.cursor() as cursor:
        cursor.execute(STEP_LOG_DROPPING_BELOW_SQL, {"cutoff": cutoff})
        return cursor.fetchone()[0]


def step_log_partitions_drop(cutoff: datetime) -> list[Dropped]:
    """Drop every step log partition whose range ends at or before `cutoff` and that no run
    created in its range is left in, oldest first, each in a transaction of its own; what went.

    When the step log's lock is not had within LOCK_TIMEOUT (a long reader holds it: every
    partition's drop needs it), that partition and those after it stay for the next run."""
    with connection.cursor() as cursor:
        cursor.execute(STEP_LOG_DROPPABLE_SQL, {"cutoff": cutoff})
        candidates = [name for (name,) in cursor.fetchall()]
    dropped = []
    for name in candidates:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                _lock_timeout(cursor)
                cursor.execute(STEP_LOG_DROP_SQL, {"partition": name, "cutoff": cutoff})
                rows = cursor.fetchone()[0]
        except OperationalError as exc:
            if getattr(exc.__cause__, "sqlstate", None) not in BUSY:
                raise
            kept = candidates[candidates.index(name) :]
            logger.warning(
                "step log partition(s) %s kept for the next purge: %s", ", ".join(kept), exc
            )
            break
        if rows is not None:
            dropped.append(Dropped(name, rows))
    return dropped


def _lock_timeout(cursor) -> None:
    cursor.execute("SELECT set_config('lock_timeout', %s, true)", [LOCK_TIMEOUT])
