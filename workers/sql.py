"""The raw SQL on `send_ledger` and `step_log`, in one place: fragments that ride along in the
claim and release statements of triggers/sql.py (read its header for how they compose).

- SEND_OPEN_SQL runs as the claim's CTE `also` and reads `claimed`; SEND_OPEN_RETURNS are the
  expressions it adds to the claim's row (the ledger row's send_count, an earlier result).
- SEND_COMPLETE_SQL, SEND_UNUSED_SQL and STEP_LOG_SQL run as the release's `also_<n>`; only the
  step log reads `released` (it is written only when the release applies; a send that happened
  is recorded in any case).
- Retention (PURGED_TABLES, FINISHED, DELETED) is the dry run's count of what each database
  purge function would delete; the functions themselves are in workers migrations 0005, 0006.
- Table names come from the models' `_meta`, send statuses from SendStatus through the
  parameters; each fragment's parameters carry its own prefix (`ledger_`, `unused_`, `log_`),
  and the functions below build them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from recipients.models import Recipient
from triggers.sql import EVENT_TABLE, TRIGGER_TABLE
from workers.models import SendLedger, SendStatus, StepExecutionLog
from workflows.models import WorkflowVersion

LEDGER_TABLE = SendLedger._meta.db_table
STEP_LOG_TABLE = StepExecutionLog._meta.db_table
RECIPIENT_TABLE = Recipient._meta.db_table

# Opens the ledger in the claim's own statement: when the node the claim lands on is a send node
# of the trigger's version, the `sending` row is written, or its send_count raised for another
# attempt at a send that never completed. A completed send is left alone, and its result comes
# back to be reused instead.
SEND_OPEN_SQL = f"""
INSERT INTO {LEDGER_TABLE} (trigger_id, node_id, idempotency_key, channel, status,
                         send_count, created_at)
SELECT claimed.id, claimed.current_node_id, claimed.id::text || ':' || claimed.current_node_id,
       node.type, %(ledger_sending)s::text, 1, now()
FROM claimed
JOIN {WorkflowVersion._meta.db_table} version ON version.id = claimed.workflow_version_id
CROSS JOIN LATERAL jsonb_to_recordset(version.definition -> 'nodes') AS node(id text, type text)
WHERE node.id = claimed.current_node_id AND node.type = ANY(%(ledger_channels)s)
ON CONFLICT (trigger_id, node_id) DO UPDATE
    SET send_count = {LEDGER_TABLE}.send_count + 1
    WHERE {LEDGER_TABLE}.status = %(ledger_sending)s::text
RETURNING send_count
"""  # noqa: S608 (names from the models, values as parameters)
SEND_OPEN_RETURNS = (
    "(SELECT send_count FROM also)",
    f"""(SELECT result FROM {LEDGER_TABLE}
        WHERE trigger_id = claimed.id AND node_id = claimed.current_node_id
          AND status = %(ledger_sent)s::text)""",  # noqa: S608
)


def send_open_params(*, channels: list[str]) -> dict[str, Any]:
    return {
        "ledger_channels": channels,
        "ledger_sending": SendStatus.SENDING.value,
        "ledger_sent": SendStatus.SENT.value,
    }


# Runs as the release's CTE SEND_COMPLETED_CTE; its row says the send was recorded in this very
# statement (the announcement of a send the release could not record reads it: engine).
SEND_COMPLETED_CTE = "ledger_sent"
SEND_COMPLETE_SQL = f"""
UPDATE {LEDGER_TABLE}
SET status = %(ledger_sent)s::text, result = %(ledger_result)s::jsonb, sent_at = now(),
    provider = %(ledger_provider)s::text, provider_message_id = %(ledger_provider_msg)s::text,
    providers = providers || %(ledger_provider)s::text
WHERE trigger_id = %(ledger_trigger)s AND node_id = %(ledger_node)s
  AND status = %(ledger_sending)s::text
RETURNING trigger_id
"""  # noqa: S608 (names from the models, values as parameters)


def send_complete_params(
    *, trigger_id: UUID | str, node_id: str, result: dict[str, Any]
) -> dict[str, Any]:
    return {
        "ledger_result": json.dumps(result),
        "ledger_provider": str(result.get("provider") or ""),
        "ledger_provider_msg": str(result.get("provider_message_id") or "")[:255],
        "ledger_trigger": str(trigger_id),
        "ledger_node": node_id,
        "ledger_sending": SendStatus.SENDING.value,
        "ledger_sent": SendStatus.SENT.value,
    }


# An attempt that reached a provider and failed: its provider joins the ledger's list.
SEND_FAILED_SQL = f"""
UPDATE {LEDGER_TABLE} SET providers = providers || %(failed_provider)s::text
WHERE trigger_id = %(failed_trigger)s AND node_id = %(failed_node)s
  AND status = %(failed_sending)s::text
"""  # noqa: S608 (names from the models, values as parameters)


def send_failed_params(*, trigger_id: UUID | str, node_id: str, provider: str) -> dict[str, Any]:
    return {
        "failed_provider": provider,
        "failed_trigger": str(trigger_id),
        "failed_node": node_id,
        "failed_sending": SendStatus.SENDING.value,
    }


SEND_UNUSED_SQL = f"""
UPDATE {LEDGER_TABLE} SET send_count = send_count - 1
WHERE trigger_id = %(unused_trigger)s AND node_id = %(unused_node)s
  AND status = %(unused_sending)s::text AND send_count > 0
"""  # noqa: S608 (names from the models, values as parameters)


def send_unused_params(*, trigger_id: UUID | str, node_id: str) -> dict[str, Any]:
    return {
        "unused_trigger": str(trigger_id),
        "unused_node": node_id,
        "unused_sending": SendStatus.SENDING.value,
    }


# The step log, written only when the release applies. Its attempt number continues after the
# node's last logged attempt rather than following the trigger's `attempts`, which counts the
# retry budget and which an operator's retry resets: the log stays unique per (trigger, node,
# attempt) however often a node is retried. The look-up is one probe of the unique index's last
# entry, made only by the lease holder (the release is fenced), so two writers can never pick
# the same number.
STEP_LOG_SQL = f"""
INSERT INTO {STEP_LOG_TABLE} (trigger_id, workflow_id, node_id, node_type, attempt, started_at,
                      finished_at, input, output, success, error)
SELECT id, %(log_workflow)s, %(log_node)s::text, %(log_type)s,
       1 + COALESCE((SELECT max(attempt) FROM {STEP_LOG_TABLE}
                     WHERE trigger_id = released.id AND node_id = %(log_node)s::text), 0),
       %(log_started)s, %(log_finished)s, %(log_input)s::jsonb, %(log_output)s::jsonb,
       %(log_success)s, %(log_error)s
FROM released
"""  # noqa: S608 (names from the models, values as parameters)


def step_log_params(
    *,
    workflow_id: int,
    node_id: str,
    node_type: str,
    started_at: datetime,
    finished_at: datetime,
    input: dict[str, Any],
    output: dict[str, Any] | None,
    error: str,
) -> dict[str, Any]:
    """A step log's parameters; the step succeeded when there is no `error`."""
    return {
        "log_workflow": workflow_id,
        "log_node": node_id,
        "log_type": node_type,
        "log_started": started_at,
        "log_finished": finished_at,
        "log_input": json.dumps(input),
        "log_output": None if output is None else json.dumps(output),
        "log_success": not error,
        "log_error": error,
    }


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

    @property
    def batch_sql(self) -> str:
        """One batch: deletes and returns the counts (parameters `cutoff`, `batch`)."""
        return f"SELECT * FROM {self.function}(%(cutoff)s, %(batch)s)"  # noqa: S608 (a constant)

    def count_sql(self, table: str) -> str:
        if table == TRIGGER_TABLE:
            return f"SELECT count(*) FROM {TRIGGER_TABLE} t WHERE {self.doomed_where}"  # noqa: S608
        return (
            f"SELECT count(*) FROM {table} c JOIN {TRIGGER_TABLE} t ON t.id = c.trigger_id "  # noqa: S608 (table names are constants)
            f"WHERE {self.doomed_where}"
        )


# Terminal triggers finished before the cutoff. A trigger finishes after it is created, so the
# redundant `created_at` bound lets PostgreSQL use the (status, created_at) index.
FINISHED = Purge(
    function="notiflow_purge_batch",
    doomed_where="notiflow_purge_finished_v1(t.status, t.created_at, t.completed_at, %(cutoff)s)",
)
# Soft-deleted before the cutoff, whatever the status, except under a live lease (a step that
# was running when the trigger was deleted may still record its outcome: the next run takes it).
DELETED = Purge(
    function="notiflow_purge_deleted_batch",
    doomed_where="notiflow_purge_deleted_v1(t.deleted_at, t.lease_until, %(cutoff)s)",
)


# The push channels' progress through a recipient's addresses (workers/services/push.py): while
# the ledger row is `sending`, its `result` holds {"progress": {address id: outcome}}, each
# outcome committed as soon as the push service answered, so a retry after a crash sends only to
# the addresses not yet answered. The append-only guard lets a `sending` row change this way.
PUSH_PROGRESS_SQL = f"""
SELECT result -> 'progress' FROM {LEDGER_TABLE}
WHERE trigger_id = %(push_trigger)s AND node_id = %(push_node)s AND status = %(push_sending)s
"""  # noqa: S608 (names from the models, values as parameters)
PUSH_PROGRESS_RECORD_SQL = f"""
UPDATE {LEDGER_TABLE}
SET result = jsonb_set(coalesce(result, '{{}}'::jsonb), '{{progress}}',
                       coalesce(result -> 'progress', '{{}}'::jsonb) || %(push_outcome)s::jsonb)
WHERE trigger_id = %(push_trigger)s AND node_id = %(push_node)s AND status = %(push_sending)s
"""  # noqa: S608 (names from the models, values as parameters)


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
# another address is kept).
PUSH_ADDRESS_REMOVE_SQL = f"""
UPDATE {RECIPIENT_TABLE}
SET channels = jsonb_set(channels, ARRAY[%(push_key)s::text], (
        SELECT coalesce(jsonb_agg(address), '[]'::jsonb)
        FROM jsonb_array_elements(channels -> %(push_key)s::text) AS address
        WHERE address <> %(push_address)s::jsonb)),
    updated_at = now()
WHERE key = %(push_recipient)s AND jsonb_typeof(channels -> %(push_key)s::text) = 'array'
"""  # noqa: S608 (names from the models, values as parameters)
