"""Retention: the one path that deletes audit rows (docs/design.md, rule 8; `manage.py purge_logs`).

Step logs, trigger events and the send ledger are append-only: the `notiflow_append_only()`
PostgreSQL trigger refuses UPDATE, DELETE and TRUNCATE on them, except a DELETE by the role
`notiflow_retention`, which nobody logs in as. It owns `notiflow_purge_batch()` (workers
migration 0005), the SECURITY DEFINER function this module calls: finished triggers' rows are
all it can delete. The dry run counts the same rows with plain SELECTs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.utils import timezone

from triggers.models import TERMINAL_STATUSES
from triggers.sql import EVENT_TABLE, TRIGGER_TABLE
from workers.sql import LEDGER_TABLE, STEP_LOG_TABLE

# Children first: they reference trigger_instance. The names are the tables' own.
PURGED_TABLES = (STEP_LOG_TABLE, LEDGER_TABLE, EVENT_TABLE, TRIGGER_TABLE)

# What the purge function deletes (the dry run counts it): terminal triggers finished before
# the cutoff. A trigger finishes after it is created, so the redundant `created_at` bound lets
# PostgreSQL use the (status, created_at) index.
_DOOMED_WHERE = (
    "t.status = ANY(%(terminal)s) AND t.created_at < %(cutoff)s AND t.completed_at < %(cutoff)s"
)


def _count_sql(table: str) -> str:
    if table == TRIGGER_TABLE:
        return f"SELECT count(*) FROM {TRIGGER_TABLE} t WHERE {_DOOMED_WHERE}"  # noqa: S608
    return (
        f"SELECT count(*) FROM {table} c JOIN {TRIGGER_TABLE} t ON t.id = c.trigger_id "  # noqa: S608 (table names are constants)
        f"WHERE {_DOOMED_WHERE}"
    )


@dataclass
class PurgeReport:
    """Rows deleted (or, in a dry run, that would be) per table, and how many batches it took."""

    cutoff: datetime
    dry_run: bool
    deleted: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PURGED_TABLES, 0))
    batches: int = 0

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
    can still run is never touched. Each batch of `batch_size` triggers is one call of the
    database's `notiflow_purge_batch`, which deletes a trigger together with all its rows
    (nothing is ever half purged) as the one role allowed to. Batches keep locks and WAL bursts
    short next to a live system; a purge interrupted between batches has deleted whole triggers only and can
    simply be run again. Rows locked by someone else are skipped and left for the next run.
    `dry_run` counts what would go and deletes nothing. `on_batch(n, counts)` reports progress.
    """
    if older_than <= timedelta(0):
        raise ValueError("the retention period must be positive")
    if batch_size < 1:
        raise ValueError("the batch size must be at least 1")
    cutoff = (now or timezone.now()) - older_than
    report = PurgeReport(cutoff=cutoff, dry_run=dry_run)
    params: dict[str, Any] = {
        "terminal": list(TERMINAL_STATUSES),
        "cutoff": cutoff,
        "batch": batch_size,
    }
    if dry_run:
        with connection.cursor() as cursor:
            for table in PURGED_TABLES:
                cursor.execute(_count_sql(table), params)
                report.deleted[table] = cursor.fetchone()[0]
        return report
    while True:  # every full batch deletes rows, so this ends; a short batch is the last
        counts = _purge_batch(params)
        if not counts[TRIGGER_TABLE]:
            break
        report.batches += 1
        report.add(counts)
        if on_batch:
            on_batch(report.batches, counts)
        if counts[TRIGGER_TABLE] < batch_size:
            break
    return report


def _purge_batch(params: dict[str, Any]) -> dict[str, int]:
    # The database function (workers migration 0005) picks and deletes the batch as the role
    # notiflow_retention, the only one the append-only guard lets delete; its columns are the
    # tables, in PURGED_TABLES' order.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT * FROM notiflow_purge_batch(%(cutoff)s, %(batch)s)",
            {"cutoff": params["cutoff"], "batch": params["batch"]},
        )
        row = cursor.fetchone()
    return dict(zip(PURGED_TABLES, (int(count) for count in row), strict=True))
