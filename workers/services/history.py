"""The history's partitions (workers migration 0014, triggers 0030; docs/reliability/index.md,
"History by partition"): created ahead of time by beat, dropped whole by retention.

The step log is partitioned by its run's creation time, the runs' status events (`trigger_event`)
by their own, `NOTIFLOW_STEP_LOG_PARTITION_DAYS` a partition each. Beat's hourly
`workers.step_log_partitions` keeps both created `NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS` ahead.
After retention's batches have deleted the runs, `partitions_drop` drops each partition past the
cutoff that no run whose rows it may hold is left in: a day of rows goes in one DROP TABLE instead
of a DELETE per row.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from workers.sql import PARTITIONED, Partitioned

logger = logging.getLogger(__name__)

# How long a partition's creation or drop waits for its table's lock (both take it whole for a
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
    table: str


def partitions_ensure(*, now: datetime | None = None) -> list[str]:
    """Create every partitioned history table's partitions up to
    NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS after `now`; the names of those created (none when
    they exist)."""
    upto = (now or timezone.now()) + timedelta(
        days=settings.NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS
    )
    made = []
    for history in PARTITIONED:
        with transaction.atomic(), connection.cursor() as cursor:
            _lock_timeout(cursor)
            cursor.execute(
                history.partitions_sql,
                {"upto": upto, "span": settings.NOTIFLOW_STEP_LOG_PARTITION_DAYS},
            )
            made += [name for (name,) in cursor.fetchall()]
    return made


def partitions_horizon() -> datetime | None:
    """The earliest of the tables' last partitions' upper bounds: a run created after it could
    not log its steps, or an event written then be kept (None: a table has no partition)."""
    horizons = []
    with connection.cursor() as cursor:
        for history in PARTITIONED:
            cursor.execute(history.horizon_sql)
            horizons.append(cursor.fetchone()[0])
    return None if None in horizons else min(horizons)


def partitions_ahead(horizon: datetime | None) -> timedelta:
    """How far past now `horizon` (partitions_horizon) reaches; nothing without a partition."""
    return horizon - timezone.now() if horizon else timedelta(0)


def dropping_below(cutoff: datetime) -> dict[str, datetime | None]:
    """Per table, as `<table>_dropped_below`: where the partitions that a purge of finished runs
    up to `cutoff` will drop end; its batches leave the rows below it to the drop (None:
    none)."""
    below = {}
    with connection.cursor() as cursor:
        for history in PARTITIONED:
            cursor.execute(history.dropping_below_sql, {"cutoff": cutoff})
            below[f"{history.table}_dropped_below"] = cursor.fetchone()[0]
    return below


def partitions_drop(cutoff: datetime) -> list[Dropped]:
    """Drop every partition of the history whose range ends at or before `cutoff` and that no
    run whose rows it may hold is left in, oldest first, each in a transaction of its own; what
    went."""
    return [dropped for history in PARTITIONED for dropped in _drop(history, cutoff)]


def _drop(history: Partitioned, cutoff: datetime) -> list[Dropped]:
    """When the table's lock is not had within LOCK_TIMEOUT (a long reader holds it: every
    partition's drop needs it), that partition and those after it stay for the next run."""
    with connection.cursor() as cursor:
        cursor.execute(history.droppable_sql, {"cutoff": cutoff})
        candidates = [name for (name,) in cursor.fetchall()]
    dropped = []
    for name in candidates:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                _lock_timeout(cursor)
                cursor.execute(history.drop_sql, {"partition": name, "cutoff": cutoff})
                rows = cursor.fetchone()[0]
        except OperationalError as exc:
            if getattr(exc.__cause__, "sqlstate", None) not in BUSY:
                raise
            kept = candidates[candidates.index(name) :]
            logger.warning(
                "%s partition(s) %s kept for the next purge: %s",
                history.rows,
                ", ".join(kept),
                exc,
            )
            break
        if rows is not None:
            dropped.append(Dropped(name, rows, history.table))
    return dropped


def _lock_timeout(cursor) -> None:
    cursor.execute("SELECT set_config('lock_timeout', %s, true)", [LOCK_TIMEOUT])
