"""The raw SQL on `send_ledger` and `step_log` outside the claim and the release (which write
them in their database functions, triggers migration 0013): retention, and the push channels'
progress through a recipient's addresses (the calls of workers migration 0012's functions).

- Retention (PURGED_TABLES, FINISHED, DELETED) is the dry run's count of what each database
  purge function would delete; the functions themselves are in workers migrations 0005, 0006.
- Table names come from the models' `_meta`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from triggers.sql import EVENT_TABLE, TRIGGER_TABLE
from workers.models import SendLedger, SendStatus, StepExecutionLog

LEDGER_TABLE = SendLedger._meta.db_table
STEP_LOG_TABLE = StepExecutionLog._meta.db_table


# --- the history's partitions (workers migration 0014, triggers 0030; docs/reliability/index.md) --


@dataclass(frozen=True)
class Partitioned:
    """A history table partitioned by time, and the calls of its migration's functions
    (`notiflow_<table>_..._v1`): made ahead by beat, dropped whole by retention."""

    table: str
    # What its rows are, in messages: "step log", "run event".
    rows: str

    @property
    def dropped_line(self) -> str:
        """How purge_logs starts its line naming this table's partitions it dropped, each with
        its rows (`<name> <rows>, …`): workers/management/retention.py writes it, the bench
        reads it."""
        return f"{self.rows} partitions dropped (their rows): "

    @property
    def partitions_sql(self) -> str:
        """Creates the partitions up to a time (each `span` days, from where the last one ends);
        their names, none when they all exist."""
        return f"SELECT notiflow_{self.table}_partitions_v1(%(upto)s, %(span)s)"

    @property
    def droppable_sql(self) -> str:
        """The range partitions whose upper bound is at or before the cutoff, oldest first: the
        ones a retention run may drop."""
        return (
            f"SELECT partition FROM notiflow_{self.table}_ranges_v1()"  # noqa: S608 (a constant)
            " WHERE upper_bound <= %(cutoff)s ORDER BY upper_bound"
        )

    @property
    def dropping_below_sql(self) -> str:
        """Where the partitions that a purge of finished runs will drop after its batches end:
        the oldest, in a row, past the cutoff, that no run is left in that the purge does not
        take."""
        return f"SELECT notiflow_{self.table}_dropping_below_v1(%(cutoff)s)"

    @property
    def drop_sql(self) -> str:
        """Drops one if no run is left whose rows it may hold: its row count, or NULL when it
        stays."""
        return f"SELECT notiflow_{self.table}_drop_v1(%(partition)s, %(cutoff)s)"

    @property
    def horizon_sql(self) -> str:
        """The last range partition's upper bound: how far ahead rows can be written."""
        return f"SELECT max(upper_bound) FROM notiflow_{self.table}_ranges_v1()"  # noqa: S608


# By their run's creation (workers migration 0014), and by their own time (triggers 0030).
STEP_LOG_PARTITIONS = Partitioned(STEP_LOG_TABLE, "step log")
EVENT_PARTITIONS = Partitioned(EVENT_TABLE, "run event")
PARTITIONED = (STEP_LOG_PARTITIONS, EVENT_PARTITIONS)


# --- retention ----------------------------------------------------------------------------------

# Children first: they reference trigger_instance. The names are the tables' own.
PURGED_TABLES = (STEP_LOG_TABLE, LEDGER_TABLE, EVENT_TABLE, TRIGGER_TABLE)


@dataclass(frozen=True)
class Purge:
    """One kind of purge: the database function that deletes a batch of it (arguments: the
    cutoff and the batch size; columns: PURGED_TABLES' counts), and its choice of triggers as SQL
    over `t` (trigger_instance) with the parameter `cutoff`, for the dry run's counts: a call of
    the SQL predicate that the database function calls too (workers migration 0010)."""

    function: str
    doomed_where: str
    # The function's arguments after the cutoff and the batch size.
    more_arguments: str = ""
    # Whether the step log's partitions that its runs leave empty are dropped after its batches.
    drops_partitions: bool = False

    @property
    def batch_sql(self) -> str:
        """One batch: deletes and returns the counts (parameters `cutoff`, `batch` and those of
        `more_arguments`)."""
        return f"SELECT * FROM {self.function}(%(cutoff)s, %(batch)s{self.more_arguments})"  # noqa: S608 (a constant)

    def count_sql(self, table: str) -> str:
        if table == TRIGGER_TABLE:
            return f"SELECT count(*) FROM {TRIGGER_TABLE} t WHERE {self.doomed_where}"  # noqa: S608
        return (
            f"SELECT count(*) FROM {table} c JOIN {TRIGGER_TABLE} t ON t.id = c.trigger_id "  # noqa: S608 (table names are constants)
            f"WHERE {self.doomed_where}"
        )


# Terminal triggers finished before the cutoff. A trigger finishes after it is created, so the
# redundant `created_at` bound lets PostgreSQL use the (status, created_at) index.
# The rows in the partitions that the purge drops after its batches, those below each table's
# `<table>_dropped_below`, are left to the drop (version 3, workers migration 0015):
# Partitioned's dropping_below_sql.
FINISHED = Purge(
    function="notiflow_purge_batch_v3",
    doomed_where="notiflow_purge_finished_v1(t.status, t.created_at, t.completed_at, %(cutoff)s)",
    more_arguments="".join(f", %({p.table}_dropped_below)s" for p in PARTITIONED),
    drops_partitions=True,
)
# Soft-deleted before the cutoff, whatever the status, except under a live lease (a step that
# was running when the trigger was deleted may still record its outcome: the next run takes it).
DELETED = Purge(
    function="notiflow_purge_deleted_batch",
    doomed_where="notiflow_purge_deleted_v2(t.deleted_at, t.lease_until, %(cutoff)s)",
)


# The push channels' progress through a recipient's addresses (workers/services/push.py): while
# the ledger row is `sending`, its `result` holds {"progress": {address id: outcome}}, each
# outcome committed as soon as the push service answered, so a retry after a crash sends only to
# the addresses not yet answered. The append-only guard lets a `sending` row change this way.
PUSH_PROGRESS_SQL = f"""
SELECT result -> 'progress' FROM {LEDGER_TABLE}
WHERE trigger_id = %(push_trigger)s AND node_id = %(push_node)s AND status = %(push_sending)s
"""  # noqa: S608 (names from the models, values as parameters)
# The progress write is the function notiflow_push_progress_v1 (workers migration 0012): the
# worker role has no UPDATE of its own on the ledger.
PUSH_PROGRESS_RECORD_SQL = (
    "SELECT notiflow_push_progress_v1(%(push_trigger)s::uuid, %(push_node)s::text,"
    " %(push_outcome)s::jsonb)"
)


def push_progress_params(
    *, trigger_id: UUID | str, node_id: str, outcome: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "push_trigger": str(trigger_id),
        "push_node": node_id,
        "push_sending": SendStatus.SENDING.value,
        "push_outcome": json.dumps(outcome or {}),
    }


# A push address the service says is gone leaves the recipient: every element of the list at
# channels -> key equal to it is dropped, in one statement (a concurrent edit of another key or
# another address is kept): the function notiflow_push_address_remove_v2 (workers migration
# 0013), as the worker role has no UPDATE of its own on recipients.
PUSH_ADDRESS_REMOVE_SQL = (
    "SELECT notiflow_push_address_remove_v2(%(push_recipient)s::text, %(push_key)s::text,"
    " %(push_address)s::jsonb)"
)
