"""The raw SQL on `trigger_instance` and `trigger_event`, in one place.

Raw because these statements are the hot path: each does in one round trip what the ORM does in
three to five (BENCHMARKS.md, figure 3). Everything else about triggers goes through the ORM.

How the statements and their fragments compose:

- **Names** come from the models' `_meta` (TRIGGER_TABLE, EVENT_TABLE, TRIGGER_COLUMNS, ...);
  statuses are parameters `%(st_<status>)s`, filled from TriggerStatus by STATUS_PARAMS, never
  literals. (The sweeper's statements run through Django's cursor, which binds on the client, so
  the planner still sees the status and uses the partial indexes on it.)
- **Events**: every trigger_event row is written by one INSERT, `event_insert()`, whichever
  statement carries it.
- **The claim** (claim_sql) defines the CTEs `prior` (the row as it was, locked), `claimed` (the
  claimed row: every trigger_instance column, plus `prior_status`) and `claim_event`. One more
  data-modifying statement may ride along as the CTE `also`: it may read `claimed`, and the
  claim's row gets the extra expressions `returns`, which may read `claimed` and `also`.
- **The release** (release_sql) defines `released` (one row, the trigger's `id`, `workflow_id`
  and `priority`, present only when the fenced update applied) and `release_event`, and returns
  the route of the trigger's next nudge (its workflow's queue as it is now, its priority), or no
  row. Further statements ride along as the CTEs
  `also_0`, `also_1`, ... in order, or under a name of their own (which a later one may read);
  one that must apply only with the release reads `released`. The release's row gets the extra
  expressions `returns`, which may read those CTEs.
- **Parameters** are named. The claim's own are CLAIM_PARAMS, the release's RELEASE_PARAMS, and
  both take STATUS_PARAMS. A fragment prefixes its own parameters (`ledger_`, `unused_`, `log_`);
  triggers.state refuses a fragment whose names clash.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from typing import Any

from common.leases import lease_expired_sql
from registry.sql import queue_served_sql
from triggers.models import TERMINAL_STATUSES, TriggerEvent, TriggerInstance, TriggerStatus
from workflows.models import Workflow, WorkflowVersion

TRIGGER_TABLE = TriggerInstance._meta.db_table
EVENT_TABLE = TriggerEvent._meta.db_table
TRIGGER_COLUMNS: list[str] = [str(f.column) for f in TriggerInstance._meta.concrete_fields]

STATUS_PARAMS: dict[str, str] = {f"st_{status}": str(status) for status in TriggerStatus.values}


def _st(status: TriggerStatus) -> str:
    # Cast: a parameter used both in a comparison (varchar) and in a select list (text) must
    # have one type in a prepared statement.
    return f"%(st_{status.value})s::text"


ENQUEUED, PROCESSING = _st(TriggerStatus.ENQUEUED), _st(TriggerStatus.PROCESSING)

_EVENT_COLUMNS = ("trigger_id", "from_status", "to_status", "reason", "actor", "node_id")


def event_insert(
    *,
    source: str,
    trigger_id: str,
    from_status: str,
    to_status: str,
    reason: str,
    actor: str,
    node_id: str,
) -> str:
    """The INSERT of one trigger_event row per row of `source`; the other arguments are SQL
    expressions over it."""
    values = (trigger_id, from_status, to_status, reason, actor, node_id)
    return (
        f"INSERT INTO {EVENT_TABLE} ({', '.join(_EVENT_COLUMNS)})\n"  # noqa: S608
        f"    SELECT {', '.join(values)} FROM {source}"
    )


# --- the claim ----------------------------------------------------------------------------------

CLAIM_PARAMS = frozenset({"id", "worker", "lease"})

_CLAIM_RETURNED_COLUMNS = ", ".join(TRIGGER_COLUMNS)
_CLAIM_EVENT = event_insert(
    source="claimed",
    trigger_id="id",
    from_status="prior_status",
    to_status=PROCESSING,
    reason=f"CASE WHEN prior_status = {PROCESSING} THEN 'lease expired; reclaimed' ELSE 'claimed' END",
    actor="%(worker)s",
    node_id="current_node_id",
)
_CLAIM_TEMPLATE = f"""
WITH prior AS (
    -- A soft-deleted trigger is never claimed (docs/design.md, rule 12). The test is made on
    -- `prior`'s row in `claimed`, not here: a `deleted_at IS NULL` beside `id = ...` lets the
    -- planner pick the partial unique index (workflow, idempotency_key) WHERE deleted_at IS NULL
    -- over the primary key and scan it whole, which it did on a table not yet analysed.
    SELECT id, status, deleted_at FROM {TRIGGER_TABLE}
    WHERE id = %(id)s
      AND ((status = {ENQUEUED} AND available_at <= now())
           OR (status = {PROCESSING} AND {lease_expired_sql()}))
    FOR UPDATE
), claimed AS (
    UPDATE {TRIGGER_TABLE} t
    SET status = {PROCESSING}, lease_until = now() + %(lease)s * interval '1 second',
        leased_by = %(worker)s, nudged_at = NULL, updated_at = now(),
        -- A lease that expired is an attempt that died with its worker: it counts, so a node
        -- that kills every worker running it ends failed instead of being reclaimed forever.
        attempts = t.attempts + CASE WHEN prior.status = {PROCESSING} THEN 1 ELSE 0 END
    FROM prior WHERE t.id = prior.id AND prior.deleted_at IS NULL
    RETURNING t.*, prior.status AS prior_status
), claim_event AS (
    {_CLAIM_EVENT}
){{also}}
SELECT {_CLAIM_RETURNED_COLUMNS}{{returns}} FROM claimed
"""  # noqa: S608 (names from the models, values as parameters)


@lru_cache(maxsize=16)
def claim_sql(also_sql: str = "", returns: tuple[str, ...] = ()) -> str:
    """The claim, carrying `also_sql` as the CTE `also` and the extra columns `returns`.
    Built once per kind of claim, not once per step."""
    return _CLAIM_TEMPLATE.format(
        also=f", also AS (\n{also_sql.strip()}\n)" if also_sql else "",
        returns="".join(f", {expression}" for expression in returns),
    )


# --- the release --------------------------------------------------------------------------------

RELEASE_PARAMS = frozenset(
    {"id", "status", "node", "patch", "attempts", "available_at", "nudged", "error", "finished"}
    | {"token", "reason", "event_node"}
)

_RELEASE_EVENT = event_insert(
    source="released",
    trigger_id="id",
    from_status=PROCESSING,
    to_status="%(status)s",
    reason="%(reason)s",
    actor="%(token)s",
    node_id="%(event_node)s",
)
# What a release sets, column by column: the one home of its effect. Each column has its SQL
# (over release_params' parameters) and the same value computed in memory from the trigger as
# claimed, the Release and the worker's clock `now` (standing for the statement's now()), which
# triggers.state.released_copy applies: the events announce the trigger as the release leaves it.
_Value = Callable[[Any, Any, datetime], Any]  # (trigger, release, now) -> the column's value
RELEASE_SETS: dict[str, tuple[str, _Value]] = {
    "status": ("%(status)s", lambda t, r, now: r.status),
    "current_node_id": ("%(node)s", lambda t, r, now: r.current_node_id),
    "vars": ("vars || %(patch)s::jsonb", lambda t, r, now: {**t.vars, **(r.vars_patch or {})}),
    "attempts": ("%(attempts)s", lambda t, r, now: r.attempts),
    "available_at": ("%(available_at)s", lambda t, r, now: r.available_at),
    "lease_until": ("NULL", lambda t, r, now: None),
    "leased_by": ("''", lambda t, r, now: ""),
    "nudged_at": (
        "CASE WHEN %(nudged)s THEN now() END",
        lambda t, r, now: now if r.nudged else None,
    ),
    "last_error": ("%(error)s", lambda t, r, now: r.last_error),
    "completed_at": (
        "CASE WHEN %(finished)s THEN now() END",
        lambda t, r, now: now if r.status in TERMINAL_STATUSES else None,
    ),
    "updated_at": ("now()", lambda t, r, now: now),
}
_RELEASE_SET_SQL = ",\n        ".join(
    f"{column} = {sql}" for column, (sql, _) in RELEASE_SETS.items()
)
_RELEASE_TEMPLATE = f"""
WITH released AS (
    UPDATE {TRIGGER_TABLE}
    SET {_RELEASE_SET_SQL}
    WHERE id = %(id)s AND status = {PROCESSING} AND leased_by = %(token)s
    RETURNING id, workflow_id, priority
), release_event AS (
    {_RELEASE_EVENT}
){{also}}
SELECT w.queue, released.priority{{returns}}
FROM released JOIN {Workflow._meta.db_table} w ON w.id = released.workflow_id
"""  # noqa: S608 (names from the models, values as parameters)


@lru_cache(maxsize=32)
def release_sql(
    also: tuple[tuple[str | None, str], ...] = (), returns: tuple[str, ...] = ()
) -> str:
    """The release, carrying the statements `also` ((name, sql) pairs) as CTEs, each under its
    name or as also_<i>, and the extra columns `returns`. Built once per combination of writes,
    not once per step."""
    parts = "".join(
        f", {name or f'also_{i}'} AS (\n{sql.strip()}\n)" for i, (name, sql) in enumerate(also)
    )
    return _RELEASE_TEMPLATE.format(
        also=parts, returns="".join(f", {expression}" for expression in returns)
    )


# --- intake -------------------------------------------------------------------------------------

# Every column of a new trigger and its value, as SQL over `r` (the request, below) and `target`
# (its workflow). Built from this mapping, so a new column without a database default fails here,
# at import, not at run time.
_INTAKE_VALUES = {
    "id": "r.id",
    "workflow_id": "target.workflow_id",
    "workflow_version_id": "target.version_id",
    "idempotency_key": "r.key",
    "request_hash": "r.hash",
    "cancellation_key": "r.cancellation_key",
    "payload": "r.payload::jsonb",
    "recipient": "COALESCE(r.recipient, '')",
    "status": ENQUEUED,
    "priority": "COALESCE(r.priority, target.priority)",
    "current_node_id": "target.entry_node_id",
    "vars": "'{}'::jsonb",
    "attempts": "0",
    "available_at": "now()",
    "lease_until": "NULL",
    "leased_by": "''",
    "nudged_at": "now()",
    "last_error": "''",
    "created_by": "%(actor)s",
    "created_at": "now()",
    "updated_at": "now()",
    "completed_at": "NULL",
    "deleted_at": "NULL",
    "delete_reason": "''",
}
_missing = set(TRIGGER_COLUMNS) ^ set(_INTAKE_VALUES)
if _missing:
    raise RuntimeError(f"intake: no value (or no column) for {sorted(_missing)}")

# The fields of one trigger request, as the request CTE `r` names them, in this order, and their
# SQL types.
_REQUEST_FIELDS = {
    "idx": "int",
    "id": "uuid",
    "workflow": "text",
    "key": "text",
    "payload": "text",
    "priority": "int",
    "cancellation_key": "text",
    "hash": "text",
    "recipient": "text",
}
INTAKE_REQUEST_FIELDS = tuple(_REQUEST_FIELDS)

# One request from scalar parameters (POST /api/triggers/), or many from arrays of them, one
# element per request (POST /api/triggers/bulk/): the same statement after that.
_ONE_REQUEST = "SELECT " + ", ".join(
    f"%({field})s::{kind} AS {field}" for field, kind in _REQUEST_FIELDS.items()
)
_MANY_REQUESTS = "SELECT * FROM unnest({}) AS r({})".format(  # noqa: S608 (constants)
    ", ".join(f"%({field})s::{kind}[]" for field, kind in _REQUEST_FIELDS.items()),
    ", ".join(_REQUEST_FIELDS),
)

# The inbox in one statement (one round trip, atomic on its own): for each request, its
# workflow's current version looked up by key, whether a live worker serves its queue, the trigger
# inserted if the key is new among the workflow's triggers not deleted (and the queue is served,
# unless `require_worker` is off), and its `created` event. One row per request, in request order:
# its index, the INTAKE_WORKFLOW_COLUMNS columns of the workflow, its version and queue (NULL for
# an unknown workflow), then the trigger's row whole, or NULLs when nothing was inserted. Two
# requests of one statement with the same key insert one trigger: ON CONFLICT DO NOTHING skips
# the later one, which then finds the first as any repeat does.
_CREATED_EVENT = event_insert(
    source="inserted",
    trigger_id="id",
    from_status="''",
    to_status=ENQUEUED,
    reason="'created'",
    actor="%(actor)s",
    node_id="current_node_id",
)
_INTAKE_COLUMNS = ", ".join(TRIGGER_COLUMNS)
_INTAKE_SELECT = ", ".join(_INTAKE_VALUES[column] for column in TRIGGER_COLUMNS)
_INTAKE_RETURNED = ", ".join(f"inserted.{column}" for column in TRIGGER_COLUMNS)
_INTAKE_TEMPLATE = f"""
WITH r AS (
    @requests
), target AS (
    SELECT w.id AS workflow_id, w.key, w.active, v.id AS version_id, v.number, w.queue,
           {queue_served_sql("w.queue")} AS served,
           w.priority, v.definition ->> 'entry_node_id' AS entry_node_id
    FROM {Workflow._meta.db_table} w
    LEFT JOIN {WorkflowVersion._meta.db_table} v ON v.id = w.current_version_id
    WHERE @workflows
), inserted AS (
    INSERT INTO {TRIGGER_TABLE} ({_INTAKE_COLUMNS})
    SELECT {_INTAKE_SELECT}
    FROM r JOIN target ON target.key = r.workflow
    WHERE target.active AND target.version_id IS NOT NULL
      AND (target.served OR NOT %(require_worker)s)
    @insert_order
    ON CONFLICT (workflow_id, idempotency_key) WHERE deleted_at IS NULL DO NOTHING
    RETURNING *
), created_event AS (
    {_CREATED_EVENT}
)
SELECT r.idx, target.workflow_id, target.key, target.active, target.version_id, target.number,
       target.queue, target.served, {_INTAKE_RETURNED}
FROM r LEFT JOIN target ON target.key = r.workflow LEFT JOIN inserted ON inserted.id = r.id
@rows_order
"""  # noqa: S608 (names from the models, values as parameters)


def _intake_sql(**parts: str) -> str:
    # replace, not format: the statement holds braces of its own (the empty jsonb, `'{}'`)
    sql = _INTAKE_TEMPLATE
    for name, part in parts.items():
        sql = sql.replace(f"@{name}", part)
    return sql


# One request: its workflow looked up by the parameter itself, nothing to sort (a quarter less
# of PostgreSQL's CPU per request than the many-requests form run with one).
INTAKE_SQL = _intake_sql(
    requests=_ONE_REQUEST, workflows="w.key = %(workflow)s", insert_order="", rows_order=""
)
INTAKE_MANY_SQL = _intake_sql(
    requests=_MANY_REQUESTS,
    workflows="w.key IN (SELECT workflow FROM r)",
    # In key order, whatever the request order: two bulk requests whose keys overlap then wait
    # for each other's rows in one order, and cannot deadlock.
    insert_order="ORDER BY target.workflow_id, r.key, r.idx",
    rows_order="ORDER BY r.idx",
)
INTAKE_WORKFLOW_COLUMNS = 8  # with the request's index first

# The triggers not deleted that hold keys, with their version's number: what a repeated request
# gets. One key from scalars, (workflow_id[i], key[i]) from arrays: PostgreSQL plans the array
# form afresh on every run (its generic plan guesses ten keys and loses to a custom one), which
# cost the one-key case as much as running it.
_INTAKE_EXISTING_TEMPLATE = f"""
SELECT {", ".join(f"t.{column}" for column in TRIGGER_COLUMNS)}, v.number
FROM (@held) AS held (workflow_id, key)
JOIN {TRIGGER_TABLE} t
  ON t.workflow_id = held.workflow_id AND t.idempotency_key = held.key AND t.deleted_at IS NULL
JOIN {WorkflowVersion._meta.db_table} v ON v.id = t.workflow_version_id
"""  # noqa: S608 (names from the models, values as parameters)
INTAKE_EXISTING_SQL = _INTAKE_EXISTING_TEMPLATE.replace(
    "@held", "SELECT %(workflow_id)s::bigint, %(key)s::text"
)
INTAKE_EXISTING_MANY_SQL = _INTAKE_EXISTING_TEMPLATE.replace(
    "@held", "SELECT DISTINCT * FROM unnest(%(workflow_ids)s::bigint[], %(keys)s::text[])"
)


# --- waiting clients ----------------------------------------------------------------------------

# Which of these triggers are finished: the web process's shared poll for the clients of
# `GET /api/triggers/<id>/?wait=` (triggers/waiting.py). One primary-key lookup per id; the
# statuses are the parameter `terminal`.
WAIT_TERMINAL_SQL = f"""
SELECT id FROM {TRIGGER_TABLE} WHERE id = ANY(%(ids)s) AND status = ANY(%(terminal)s)
"""  # noqa: S608 (names from the models, values as parameters)
