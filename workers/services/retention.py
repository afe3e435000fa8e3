"""Retention: the one path that deletes audit rows (docs/design/rules.md, rules 8, 10 and 12;
`manage.py purge_logs`, `manage.py purge_deleted` and `manage.py purge_events`).

Step logs, trigger events and the send ledger are append-only: the `notiflow_append_only()`
PostgreSQL trigger refuses UPDATE, DELETE and TRUNCATE on them, except a DELETE by the role
`notiflow_retention`, which nobody logs in as. It owns the two SECURITY DEFINER functions this
module calls, one per kind of purge (workers.sql's Purge): `notiflow_purge_batch()` (workers migration
0005), which can delete finished triggers' rows only, and `notiflow_purge_deleted_batch()`
(workers 0006), soft-deleted triggers' rows only. The dry run counts the same rows with plain
SELECTs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.utils import timezone

from events.sql import (
    EVENT_PURGE_BATCH_SQL,
    EVENT_PURGE_COUNT_SQL,
    EVENT_PURGED_TABLES,
)
from events.sql import EVENT_TABLE as OUTBOX_EVENT_TABLE
from triggers.models import TERMINAL_STATUSES
from triggers.sql import TRIGGER_TABLE
from workers.services.history import Dropped, dropping_below, partitions_drop
from workers.sql import DELETED, FINISHED, PURGED_TABLES, Purge

__all__ = [
    "PURGED_TABLES",
    "PurgeReport",
    "retention_purge",
    "retention_purge_deleted",
    "retention_purge_events",
]


@dataclass
class PurgeReport:
    """Rows deleted (or, in a dry run, that would be) per table, and how many batches it took.
    `unit` is the table whose rows a batch counts (the triggers, or the events)."""

    cutoff: datetime
    dry_run: bool
    deleted: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PURGED_TABLES, 0))
    batches: int = 0
    unit: str = TRIGGER_TABLE
    # The history's partitions dropped whole after the batches, with their rows (in `deleted`
    # too): workers.services.history.
    partitions: list[Dropped] = field(default_factory=list)

    def add(self, counts: dict[str, int]) -> None:
        for table, count in counts.items():
            self.deleted[table] += count


def retention_purge(
    *,
    older_than: timedelta,
    dry_run: bool = False,
    batch_size: int = 500,
    on_batch: Callable[[int, dict[str, int]], None] | None = None,
    now: datetime | None = None,
) -> PurgeReport:
    """Delete terminal triggers whose `completed_at` is older than `older_than`, with their
    step logs, send-ledger rows and events; return what was deleted, per table.

    Only `completed`, `failed` and `cancelled` triggers qualify, so the history of a trigger that
    can still run is never touched. The step logs and events in the range partitions that this
    purge empties are not deleted with their runs: once no run whose rows a partition may hold is
    left, the partition is dropped whole (workers.services.history), after the batches. Each
    batch of `batch_size` triggers is one call of the database's `notiflow_purge_batch`, which deletes a trigger together with all its rows
    (nothing is ever half purged) as the one role allowed to. Batches keep locks and WAL bursts
    short next to a live system; a purge interrupted between batches has deleted whole triggers only and can
    simply be run again. Rows locked by someone else are skipped and left for the next run.
    `dry_run` counts what would go and deletes nothing. `on_batch(n, counts)` reports progress.
    """
    return _purge(
        FINISHED,
        older_than=older_than,
        dry_run=dry_run,
        batch_size=batch_size,
        on_batch=on_batch,
        now=now,
    )


def retention_purge_deleted(
    *,
    older_than: timedelta,
    dry_run: bool = False,
    batch_size: int = 500,
    on_batch: Callable[[int, dict[str, int]], None] | None = None,
    now: datetime | None = None,
) -> PurgeReport:
    """Delete soft-deleted triggers whose `deleted_at` is older than `older_than`, with their
    step logs, send-ledger rows and events; return what was deleted, per table.

    Whatever their status: a deleted trigger is never claimed again (docs/design/rules.md, rule 12).
    One that still holds a live lease (a step running when it was deleted may yet record) waits
    for the next run. Triggers that are not deleted are never touched. Batches, locking, the dry
    run and `on_batch` as in retention_purge; each batch is one call of
    `notiflow_purge_deleted_batch`, which can delete nothing but deleted triggers' rows.
    """
    return _purge(
        DELETED,
        older_than=older_than,
        dry_run=dry_run,
        batch_size=batch_size,
        on_batch=on_batch,
        now=now,
    )


def _purge(
    purge: Purge,
    *,
    older_than: timedelta,
    dry_run: bool,
    batch_size: int,
    on_batch: Callable[[int, dict[str, int]], None] | None,
    now: datetime | None,
) -> PurgeReport:
    report = _report(older_than, batch_size, now, dry_run=dry_run)
    params: dict[str, Any] = {
        "terminal": list(TERMINAL_STATUSES),
        "cutoff": report.cutoff,
        "batch": batch_size,
    }
    if dry_run:
        with connection.cursor() as cursor:
            for table in PURGED_TABLES:
                cursor.execute(purge.count_sql(table), params)
                report.deleted[table] = cursor.fetchone()[0]
        return report
    if not purge.drops_partitions:
        return _in_batches(report, lambda: _purge_batch(purge, params), batch_size, on_batch)
    params |= dropping_below(report.cutoff)
    _in_batches(report, lambda: _purge_batch(purge, params), batch_size, on_batch)
    # The runs gone, the history's partitions that none is left in go whole.
    report.partitions = partitions_drop(report.cutoff)
    for dropped in report.partitions:
        report.add({dropped.table: dropped.rows})
    return report


def _report(
    older_than: timedelta, batch_size: int, now: datetime | None, *, dry_run: bool, **fields: Any
) -> PurgeReport:
    """An empty report for the cutoff `older_than` before `now`; ValueError for a period or a
    batch size that cannot be."""
    if older_than <= timedelta(0):
        raise ValueError("the retention period must be positive")
    if batch_size < 1:
        raise ValueError("the batch size must be at least 1")
    return PurgeReport(cutoff=(now or timezone.now()) - older_than, dry_run=dry_run, **fields)


def _in_batches(
    report: PurgeReport,
    batch: Callable[[], dict[str, int]],
    batch_size: int,
    on_batch: Callable[[int, dict[str, int]], None] | None,
) -> PurgeReport:
    """Run `batch` (one database call: rows deleted per table) until it deletes fewer than
    `batch_size` of `report.unit`: every full batch deletes rows, so this ends."""
    while True:
        counts = batch()
        if not counts[report.unit]:
            return report
        report.batches += 1
        report.add(counts)
        if on_batch:
            on_batch(report.batches, counts)
        if counts[report.unit] < batch_size:
            return report


def _purge_batch(purge: Purge, params: dict[str, Any]) -> dict[str, int]:
    # The database function (workers migrations 0005, 0006) picks and deletes the batch as the
    # role notiflow_retention, the only one the append-only guard lets delete; its columns are
    # the tables, in PURGED_TABLES' order.
    with connection.cursor() as cursor:
        cursor.execute(
            purge.batch_sql,
            params,
        )
        row = cursor.fetchone()
    return dict(zip(PURGED_TABLES, (int(count) for count in row), strict=True))


def retention_purge_events(
    *,
    older_than: timedelta,
    dry_run: bool = False,
    batch_size: int = 500,
    on_batch: Callable[[int, dict[str, int]], None] | None = None,
    now: datetime | None = None,
) -> PurgeReport:
    """Delete outbox events written more than `older_than` ago whose deliveries are all over
    (delivered or failed), with their deliveries and attempts; return what was deleted, per
    table (events/sql.py's EVENT_PURGED_TABLES).

    An event still pending for some endpoint, a disabled one included, is kept whatever its age:
    nothing is purged before it was delivered or given up on. Each batch of `batch_size` events
    is one call of the database's `notiflow_purge_events_batch` (events migration 0002), run as
    the one role the append-only guard lets delete. Dry run and `on_batch` as in retention_purge.
    """
    report = _report(
        older_than,
        batch_size,
        now,
        dry_run=dry_run,
        deleted=dict.fromkeys(EVENT_PURGED_TABLES, 0),
        unit=OUTBOX_EVENT_TABLE,
    )
    params: dict[str, Any] = {"cutoff": report.cutoff, "batch": batch_size}
    if dry_run:
        with connection.cursor() as cursor:
            for table in EVENT_PURGED_TABLES:
                cursor.execute(EVENT_PURGE_COUNT_SQL[table], params)
                report.deleted[table] = cursor.fetchone()[0]
        return report

    def batch() -> dict[str, int]:
        with connection.cursor() as cursor:
            cursor.execute(EVENT_PURGE_BATCH_SQL, params)
            return dict(zip(EVENT_PURGED_TABLES, map(int, cursor.fetchone()), strict=True))

    return _in_batches(report, batch, batch_size, on_batch)
