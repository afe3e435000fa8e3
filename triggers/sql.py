"""The raw SQL on `trigger_instance` and `trigger_event`, in one place.

Raw because these statements are the hot path: each does in one round trip what the ORM does in
three to five (BENCHMARKS.md, figure 3). Everything else about triggers goes through the ORM.

How the statements and their fragments compose:

- **Names** come from the models' `_meta` (TRIGGER_TABLE, EVENT_TABLE, TRIGGER_COLUMNS, ...);
  statuses are parameters `%(st_<status>)s`, filled from TriggerStatus by STATUS_PARAMS, never
  literals. (The sweeper's statements run through Django's cursor, which binds on the client, so
  the planner still sees the status and uses the partial indexes on it.)
- **Intake** is whole in `.sql` files under triggers/statements/ (common/statements.py), one
  per variant, with its `created` events in the statement; a fan-out's chunk is a function of
  triggers migration 0023, which writes its runs' events in its body, as the claim's and the
  release's functions do.
- **The operator's cancel, retry and replay** are database functions too, whole in triggers
  migration 0028; RUNS_CANCEL_SQL, RUN_RETRY_SQL and RUN_REPLAY_SQL are their calls.
- **The claim and the release** are not assembled here: each is a database function, whole in
  triggers migrations 0019 (`notiflow_claim_v3`) and 0029 (`notiflow_release_v6`, made from
  version 5 of 0024, itself from version 4 of 0022; versions 5, 4 and 3, of 0024, 0022 and 0019,
  and both version 2s, of 0015, for the workers of the releases before; version 1, of 0013, dropped by 0020); CLAIM_SQL and RELEASE_SQL are their
  calls.
- **One clock**: the database's `statement_timestamp()` (docs/design/rules.md, rule 15); a due time
  is a duration added to it (`due_in`), never an instant computed elsewhere.
- **Parameters** are named; the statements here take STATUS_PARAMS.
"""

from __future__ import annotations

from common.statements import statement_load
from triggers.models import TriggerEvent, TriggerInstance, TriggerStatus

TRIGGER_TABLE = TriggerInstance._meta.db_table
EVENT_TABLE = TriggerEvent._meta.db_table
TRIGGER_COLUMNS: list[str] = [str(f.column) for f in TriggerInstance._meta.concrete_fields]

STATUS_PARAMS: dict[str, str] = {f"st_{status}": str(status) for status in TriggerStatus.values}


# --- the claim and the release ------------------------------------------------------------------

# Both are database functions, each readable whole, top to bottom, in triggers migrations 0019
# (the claim) and 0022 with 0024 (the release) (docs/design/run.md, "The claim and the release"):
# versioned by name, so a change is a new `_v<n+1>` in a new migration and the new name here.
# These are their calls, one round trip each.

CLAIM_FUNCTION = "notiflow_claim_v3"
RELEASE_FUNCTION = "notiflow_release_v6"

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
# these names, written out in its own whole statements (waits/sql.py), in which it names no run
# table (tests/test_sql_homes.py holds every versioned name a statement calls to an installed,
# current version).
RUNS_HOLD_FUNCTION = "notiflow_runs_hold_v1"  # lock runs (id order) before their waits
RUNS_RESUME_FUNCTION = "notiflow_runs_resume_v1"  # waiting -> enqueued, due now, with events
RUN_PARK_FUNCTION = "notiflow_run_park_v1"  # enqueued -> waiting after a wait step's release
RUN_ENDED_FUNCTION = "notiflow_run_ended_v1"  # the run ended or is gone (what purges may drop)


# --- intake -------------------------------------------------------------------------------------

# Intake's statements, each whole in its file under triggers/statements/ (one request, many, and
# each of those storing the intake span's traceparent while tracing is on): read top to bottom
# there, nothing filled in. Whether a live worker serves the queue is the registry's function
# (registry migration 0002), which PostgreSQL inlines into them.
INTAKE_SQL = statement_load(__file__, "intake")
INTAKE_MANY_SQL = statement_load(__file__, "intake_many")
INTAKE_TRACED_SQL = statement_load(__file__, "intake_traced")
INTAKE_MANY_TRACED_SQL = statement_load(__file__, "intake_many_traced")
# The fields of one request, as the statements' parameters name them (scalars for one, arrays
# for many), in the order of their `unnest`.
INTAKE_REQUEST_FIELDS = (
    "idx",
    "id",
    "workflow",
    "key",
    "payload",
    "priority",
    "cancellation_key",
    "hash",
    "recipient",
    "locale",
    "tenant",
)
INTAKE_WORKFLOW_COLUMNS = 9  # with the request's index and whether its recipient exists first

# The runs not deleted that hold keys, with their version's number: what a repeated request
# gets; one key, or many from arrays (each file says why they are two).
INTAKE_EXISTING_SQL = statement_load(__file__, "intake_existing")
INTAKE_EXISTING_MANY_SQL = statement_load(__file__, "intake_existing_many")


# --- waiting clients ----------------------------------------------------------------------------

# Which of these triggers are finished: the web process's shared poll for the clients of
# `GET /api/triggers/<id>/?wait=` (triggers/waiting.py). One primary-key lookup per id; the
# statuses are the parameter `terminal`.
WAIT_TERMINAL_SQL = f"""
SELECT id FROM {TRIGGER_TABLE} WHERE id = ANY(%(ids)s) AND status = ANY(%(terminal)s)
"""  # noqa: S608 (names from the models, values as parameters)


# --- fan-out ------------------------------------------------------------------------------------

# A fan-out's chunk of runs in one call (triggers/fanout.py): the state machine's function, whole in
# triggers migration 0023, its version 2 (the fan-out's tenant on each run) in 0025 (SECURITY DEFINER: the worker role, which runs chunks, inserts no run
# of its own), which makes the runs and their `created` events as intake does, for one workflow
# and many recipients, where only the derived key, its request hash and the recipient differ
# from run to run. No row when the workflow does not exist, else one row per run inserted (or
# one with NULLs when none was): the workflow's columns, then the run's id, key and priority.
# The runs come as one JSON array of [key, hash, recipient] triples: a quarter of the client's
# CPU that three text[] parameters of a thousand elements cost to send.
FANOUT_RUNS_FUNCTION = "notiflow_fanout_runs_insert_v2"
FANOUT_INTAKE_SQL = f"""
SELECT f.workflow_id, f.active, f.has_version, f.queue, f.served,
       f.run_id, f.run_key, f.run_priority
FROM {FANOUT_RUNS_FUNCTION}(
    workflow => %(workflow)s::text, runs => %(runs)s::json, payload => %(payload)s::text,
    priority => %(priority)s::integer, cancellation_key => %(cancellation_key)s::text,
    actor => %(actor)s::text, require_worker => %(require_worker)s::boolean,
    live_within => %(live_within)s::float8, tenant => %(tenant)s::text
) AS f
"""  # noqa: S608 (a constant)
FANOUT_WORKFLOW_COLUMNS = 5

# Which of these keys a run (not deleted) of the workflow holds, and with which request hash.
FANOUT_HELD_SQL = f"""
SELECT idempotency_key, request_hash FROM {TRIGGER_TABLE}
WHERE workflow_id = %(workflow_id)s AND idempotency_key = ANY(%(keys)s::text[])
  AND deleted_at IS NULL
"""  # noqa: S608 (names from the models, values as parameters)


# --- the operator's cancel, retry and replay -----------------------------------------------------

# The state machine's functions, whole in triggers migration 0028 and versioned by name as the
# claim and the release are (SECURITY DEFINER: the worker role, which runs a bulk action's chunks,
# changes no run of its own). triggers/state.py calls them for the API, the admin, the shell and
# the workers alike; these are their calls, one round trip each.
RUNS_CANCEL_FUNCTION = "notiflow_runs_cancel_v1"
RUN_RETRY_FUNCTION = "notiflow_run_retry_v1"
RUN_REPLAY_FUNCTION = "notiflow_run_replay_v1"

# One row per run cancelled, in id order: its columns by name (TRIGGER_COLUMNS, as
# trigger_from_row reads them), then the deliveries of the events written, to nudge.
RUNS_CANCEL_SQL = f"""
SELECT {", ".join(f"(c.cancelled).{column}" for column in TRIGGER_COLUMNS)}, c.deliveries
FROM {RUNS_CANCEL_FUNCTION}(run_ids => %(ids)s::uuid[], actor => %(actor)s::text,
                            reason => %(reason)s::text, announced => %(events)s::jsonb) AS c
"""  # noqa: S608 (names from the models, values as parameters)

# The run put back, by name (TRIGGER_COLUMNS), then its workflow's queue; or no row.
RUN_RETRY_SQL = f"""
SELECT {", ".join(f"(r.retried).{column}" for column in TRIGGER_COLUMNS)}, r.route_queue
FROM {RUN_RETRY_FUNCTION}(run_id => %(id)s::uuid, actor => %(actor)s::text,
                          reason => %(reason)s::text) AS r
"""  # noqa: S608 (names from the models, values as parameters)

# A new run of the same version, payload and recipient as one before (a bulk action's `replay`):
# its id, its workflow's queue and its priority; or no row when the key is held already.
RUN_REPLAY_SQL = f"""
SELECT r.replay_id, r.route_queue, r.route_priority
FROM {RUN_REPLAY_FUNCTION}(run_id => %(run)s::uuid, key => %(key)s::text,
                           actor => %(actor)s::text, reason => %(reason)s::text) AS r
"""  # noqa: S608 (a constant)
