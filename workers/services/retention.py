"""Retention: the one path that deletes audit rows (docs/design.md, rule 8; `manage.py purge_logs`).

Step logs, trigger events and the send ledger are append-only: the `notiflow_append_only()`
PostgreSQL trigger refuses UPDATE and DELETE on them, except a DELETE made in a transaction that
set `notiflow.retention = 'on'`. Only this module sets it, with SET LOCAL, so the permission
ends with the transaction that needed it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from triggers.models import TERMINAL_STATUSES
from triggers.sql import EVENT_TABLE, TRIGGER_TABLE
from workers.sql import LEDGER_TABLE, STEP_LOG_TABLE

# Children first: they reference trigger_instance. The names are the tables' own.
PURGED_TABLES = (STEP_LOG_TABLE, LEDGER_TABLE, EVENT_TABLE, TRIGGER_TABLE)

# Terminal triggers finished before the cutoff. A trigger finishes after it is created, so the
# redundant `created_at` bound lets PostgreSQL use the (status, created_at) index instead of
# scanning the table once per batch. FOR UPDATE serialises with anything that could still change
# a row (`trigger_retry_now` takes the same lock, then re-checks the status); SKIP LOCKED lets a
# purge run next to the live system.
_DOOMED_WHERE = (
    "t.status = ANY(%(terminal)s) AND t.created_at < %(cutoff)s AND t.completed_at < %(cutoff)s"
)
_DOOMED_SQL = f"""
SELECT t.id FROM {TRIGGER_TABLE} t WHERE {_DOOMED_WHERE} LIMIT %(batch)s FOR UPDATE SKIP LOCKED
"""  # noqa: S608 (constant SQL)


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
    can still run is never touched. Each batch of `batch_size` triggers is one transaction that
    deletes a trigger together with all its rows (nothing is ever half purged) and is the only
    place `notiflow.retention` is on (SET LOCAL). Batches keep locks and WAL bursts short next to
    a live system; a purge interrupted between batches has deleted whole triggers only and can
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
    counts = dict.fromkeys(PURGED_TABLES, 0)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_DOOMED_SQL, params)
        ids = [row[0] for row in cursor.fetchall()]
        if not ids:
            return counts
        cursor.execute("SET LOCAL notiflow.retention = 'on'")
        for table in PURGED_TABLES:
            column = "id" if table == TRIGGER_TABLE else "trigger_id"
            cursor.execute(f"DELETE FROM {table} WHERE {column} = ANY(%s)", [ids])  # noqa: S608 (table names are constants)
            counts[table] = cursor.rowcount
        # Within an outer transaction SET LOCAL would outlive this batch: end the permission here.
        # (On an error the savepoint's rollback undoes the SET LOCAL too.)
        cursor.execute("SET LOCAL notiflow.retention = 'off'")
    return counts
