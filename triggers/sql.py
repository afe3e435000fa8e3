"""The raw SQL on `trigger_instance` and `trigger_event`, in one place.

Raw because these statements are the hot path: each does in one round trip what the ORM does in
three to five (BENCHMARKS.md, figure 3). Everything else about triggers goes through the ORM.

How the statements and their fragments compose:

- **Names** come from the models' `_meta` (TRIGGER_TABLE, EVENT_TABLE, TRIGGER_COLUMNS, ...);
  statuses are parameters `%(st_<status>)s`, filled from TriggerStatus by STATUS_PARAMS, never
  literals. (The sweeper's statements run through Django's cursor, which binds on the client, so
  the planner still sees the status and uses the partial indexes on it.)
- **Events**: the statements here write their trigger_event rows with one INSERT,
  `event_insert()`; the claim's and the release's functions write theirs in their bodies.
- **The claim and the release** are not assembled here: each is a database function, whole in
  triggers migrations 0019 (`notiflow_claim_v3`) and 0022 (`notiflow_release_v4`; the release's
  version 3, of 0019, and both version 2s, of 0015, for the workers of the releases before;
  version 1, of 0013, dropped by 0020); CLAIM_SQL and RELEASE_SQL are their calls.
- **One clock**: the database's `statement_timestamp()` (docs/design.md, rule 15); a due time
  is a duration added to it (`due_in`), never an instant computed elsewhere.
- **Parameters** are named; the statements here take STATUS_PARAMS.
"""

from __future__ import annotations

from recipients.models import Recipient
from registry.sql import queue_served_sql
from triggers.models import TriggerEvent, TriggerInstance, TriggerStatus
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


# --- the claim and the release ------------------------------------------------------------------

# Both are database functions, each readable whole, top to bottom, in triggers migrations 0019
# (the claim) and 0022 (the release) (docs/design.md, "The claim and the release"): versioned by
# name, so a change is a new `_v<n+1>` in a new migration and the new name here. These are their calls, one round trip each.

CLAIM_FUNCTION = "notiflow_claim_v3"
RELEASE_FUNCTION = "notiflow_release_v4"

# The claimed run's columns by name (TRIGGER_COLUMNS, as trigger_from_row reads them), then what
# the claim found in the send ledger, the database's clock (the step's clock), the suppression
# list's generation (a send node's) and whether any webhook endpoint hears the step's events.
CLAIM_SQL = f"""
SELECT {", ".join(f"(c.claimed).{column}" for column in TRIGGER_COLUMNS)},
       c.ledger_send_count, c.ledger_result, c.claimed_at, c.suppression_generation,
       c.announced_to
FROM {CLAIM_FUNCTION}(run_id => %(id)s::uuid, worker => %(worker)s::text,
                      lease_seconds => %(lease)s::float8, channels => %(channels)s::text[]) AS c
"""  # noqa: S608 (names from the models, values as parameters)

# The route of the run's next nudge and the deliveries to nudge, or no row.
RELEASE_SQL = f"""
SELECT r.route_queue, r.route_priority, r.deliveries
FROM {RELEASE_FUNCTION}(
    run_id => %(id)s::uuid, token => %(token)s::text, step_node => %(step_node)s::text,
    new_status => %(status)s::text, new_node => %(node)s::text, vars_patch => %(patch)s::jsonb,
    new_attempts => %(attempts)s::integer, due_in => %(due_in)s::float8,
    nudged => %(nudged)s::boolean, new_error => %(error)s::text,
    finished => %(finished)s::boolean, reason => %(reason)s::text,
    ledger => %(ledger)s::jsonb, step_log => %(step_log)s::jsonb, announced => %(events)s::jsonb,
    inbox => %(inbox)s::jsonb
) AS r
"""  # noqa: S608 (a constant)


# --- what event waits do to a run ------------------------------------------------------------

# The run's status changes a wait makes are the state machine's functions, whole in triggers
# migration 0018 and versioned by name as the claim and the release are: `waits` calls them by
# these names from its own statements (waits/sql.py), in which it names no run table.
RUNS_HOLD_FUNCTION = "notiflow_runs_hold_v1"  # lock runs (id order) before their waits
RUNS_RESUME_FUNCTION = "notiflow_runs_resume_v1"  # waiting -> enqueued, due now, with events
RUN_PARK_FUNCTION = "notiflow_run_park_v1"  # enqueued -> waiting after a wait step's release
RUN_ENDED_FUNCTION = "notiflow_run_ended_v1"  # the run ended or is gone (what purges may drop)


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
    "locale": "COALESCE(r.locale, '')",
    "status": ENQUEUED,
    "priority": "COALESCE(r.priority, target.priority)",
    "current_node_id": "target.entry_node_id",
    "vars": "'{}'::jsonb",
    "attempts": "0",
    "available_at": "statement_timestamp()",
    "lease_until": "NULL",
    "leased_by": "''",
    "nudged_at": "statement_timestamp()",
    "last_error": "''",
    "created_by": "%(actor)s",
    "created_at": "statement_timestamp()",
    "updated_at": "statement_timestamp()",
    "completed_at": "NULL",
    "deleted_at": "NULL",
    "delete_reason": "''",
    # Not in the plain statements (its database default, empty): the traced ones alone pass the
    # intake span's traceparent, so intake costs what it did while tracing is off.
    "trace_context": "%(trace_context)s::text",
}
_TRACED_ONLY = ("trace_context",)
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
    "locale": "text",
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
# unless `require_worker` is off, and the recipient it names, if any, exists: read here rather
# than by a statement of its own, a round trip fewer per request naming one), and its `created`
# event. One row per request, in request order: its index, whether its recipient exists (true
# without one), the columns of the workflow, its version and queue (NULL for
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
# The untraced statements' columns and values (the fan-out's chunk inserts these too).
_UNTRACED_COLUMNS = [c for c in TRIGGER_COLUMNS if c not in _TRACED_ONLY]
_INTAKE_COLUMNS = ", ".join(_UNTRACED_COLUMNS)
_INTAKE_SELECT = ", ".join(_INTAKE_VALUES[column] for column in _UNTRACED_COLUMNS)
_INTAKE_RETURNED = ", ".join(f"inserted.{column}" for column in TRIGGER_COLUMNS)
_INTAKE_TEMPLATE = f"""
WITH r AS (
    SELECT q.*, CASE WHEN COALESCE(q.recipient, '') = '' THEN true
                     ELSE EXISTS (SELECT 1 FROM {Recipient._meta.db_table} rc
                                  WHERE rc.key = q.recipient) END AS known
    FROM (@requests) AS q
), target AS (
    SELECT w.id AS workflow_id, w.key, w.active, v.id AS version_id, v.number, w.queue,
           {queue_served_sql("w.queue")} AS served,
           w.priority, v.definition ->> 'entry_node_id' AS entry_node_id
    FROM {Workflow._meta.db_table} w
    LEFT JOIN {WorkflowVersion._meta.db_table} v ON v.id = w.current_version_id
    WHERE @workflows
), inserted AS (
    INSERT INTO {TRIGGER_TABLE} (@columns)
    SELECT @values
    FROM r JOIN target ON target.key = r.workflow
    WHERE target.active AND target.version_id IS NOT NULL AND r.known
      AND (target.served OR NOT %(require_worker)s)
    @insert_order
    ON CONFLICT (workflow_id, idempotency_key) WHERE deleted_at IS NULL DO NOTHING
    RETURNING *
), created_event AS (
    {_CREATED_EVENT}
)
SELECT r.idx, r.known, target.workflow_id, target.key, target.active, target.version_id,
       target.number, target.queue, target.served, {_INTAKE_RETURNED}
FROM r LEFT JOIN target ON target.key = r.workflow LEFT JOIN inserted ON inserted.id = r.id
@rows_order
"""  # noqa: S608 (names from the models, values as parameters)


def _intake_sql(parts: dict[str, str], *, traced: bool = False) -> str:
    # replace, not format: the statement holds braces of its own (the empty jsonb, `'{}'`)
    columns = [c for c in TRIGGER_COLUMNS if traced or c not in _TRACED_ONLY]
    sql = _INTAKE_TEMPLATE.replace("@columns", ", ".join(columns))
    sql = sql.replace("@values", ", ".join(_INTAKE_VALUES[column] for column in columns))
    for name, part in parts.items():
        sql = sql.replace(f"@{name}", part)
    return sql


# One request: its workflow looked up by the parameter itself, nothing to sort (a quarter less
# of PostgreSQL's CPU per request than the many-requests form run with one).
_ONE = {
    "requests": _ONE_REQUEST,
    "workflows": "w.key = %(workflow)s",
    "insert_order": "",
    "rows_order": "",
}
_MANY = {
    "requests": _MANY_REQUESTS,
    "workflows": "w.key IN (SELECT workflow FROM r)",
    # In key order, whatever the request order: two bulk requests whose keys overlap then wait
    # for each other's rows in one order, and cannot deadlock.
    "insert_order": "ORDER BY target.workflow_id, r.key, r.idx",
    "rows_order": "ORDER BY r.idx",
}
INTAKE_SQL = _intake_sql(_ONE)
INTAKE_MANY_SQL = _intake_sql(_MANY)
# While tracing is on (common/tracing.py): the same, storing the parameter `trace_context` (the
# intake span's traceparent, one for every run of the request) with each run.
INTAKE_TRACED_SQL = _intake_sql(_ONE, traced=True)
INTAKE_MANY_TRACED_SQL = _intake_sql(_MANY, traced=True)
INTAKE_WORKFLOW_COLUMNS = 9  # with the request's index and whether its recipient exists first

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


# --- fan-out ------------------------------------------------------------------------------------

# A fan-out's chunk of runs in one statement (triggers/fanout.py): the intake statement's insert
# and `created` events for one workflow and many recipients, where only the derived key, its
# request hash and the recipient differ from run to run (arrays, one element per run); payload,
# priority and cancellation key are the fan-out's, once. What it answers is lean, as the chunk
# needs nothing else: no row when the workflow does not exist, else one row per run inserted (or
# one with NULLs when none was): the workflow's columns, then the run's id, key and priority.
# The runs come as one JSON array of [key, hash, recipient] triples: a quarter of the client's
# CPU that three text[] parameters of a thousand elements cost to send.
_FANOUT_REQUESTS = """
    SELECT gen_random_uuid() AS id, x.run ->> 0 AS key, x.run ->> 1 AS hash,
           x.run ->> 2 AS recipient, %(payload)s::text AS payload,
           %(priority)s::int AS priority, %(cancellation_key)s::text AS cancellation_key,
           ''::text AS locale
    FROM json_array_elements(%(runs)s::json) AS x (run)"""
FANOUT_INTAKE_SQL = f"""
WITH r AS ({_FANOUT_REQUESTS}
), target AS (
    SELECT w.id AS workflow_id, w.active, v.id AS version_id, w.queue,
           {queue_served_sql("w.queue")} AS served,
           w.priority, v.definition ->> 'entry_node_id' AS entry_node_id
    FROM {Workflow._meta.db_table} w
    LEFT JOIN {WorkflowVersion._meta.db_table} v ON v.id = w.current_version_id
    WHERE w.key = %(workflow)s
), inserted AS (
    INSERT INTO {TRIGGER_TABLE} ({_INTAKE_COLUMNS})
    SELECT {_INTAKE_SELECT}
    FROM r CROSS JOIN target
    WHERE target.active AND target.version_id IS NOT NULL
      AND (target.served OR NOT %(require_worker)s)
    ORDER BY r.key
    ON CONFLICT (workflow_id, idempotency_key) WHERE deleted_at IS NULL DO NOTHING
    RETURNING id, idempotency_key, priority, current_node_id
), created_event AS (
    {_CREATED_EVENT}
)
SELECT target.workflow_id, target.active, target.version_id IS NOT NULL, target.queue,
       target.served, inserted.id, inserted.idempotency_key, inserted.priority
FROM target LEFT JOIN inserted ON true
"""  # noqa: S608 (names from the models, values as parameters)
FANOUT_WORKFLOW_COLUMNS = 5

# The traceparents of a chunk's runs made while tracing (triggers/fanout.py `_runs_traced`),
# in the chunk's transaction: each run's trace links to the fan-out's.
FANOUT_TRACED_SQL = f"""
UPDATE {TRIGGER_TABLE} t SET trace_context = x.context
FROM unnest(%(ids)s::uuid[], %(contexts)s::text[]) AS x (id, context)
WHERE t.id = x.id
RETURNING t.id
"""  # noqa: S608 (names from the models, values as parameters)

# Which of these keys a run (not deleted) of the workflow holds, and with which request hash.
FANOUT_HELD_SQL = f"""
SELECT idempotency_key, request_hash FROM {TRIGGER_TABLE}
WHERE workflow_id = %(workflow_id)s AND idempotency_key = ANY(%(keys)s::text[])
  AND deleted_at IS NULL
"""  # noqa: S608 (names from the models, values as parameters)
