"""The statements of event waits (docs/design/waits.md, "Waiting for events"), each whole: a constant
string, nothing filled into it (tests/test_sql_homes.py holds this module to it). What several
share is a database function they call by name: what a wait does to its run is the trigger state
machine's (triggers migration 0018), what a message wait finds recorded is
`notiflow_wait_recorded_v1` (waits migration 0005).

Exactly once rests on two rules:

* **Commit, then look.** A wait is registered (committed) before the node looks back for an
  event that came first; an event is stored (committed) before it looks for the waits it
  resumes. Whichever commits second sees the other, so no pairing is missed; both may see it,
  and then the second rule picks one.
* **A wait is resolved by one conditional UPDATE** (`resolved_at IS NULL`): an event, another
  delivery of it, the timeout and the node's own look-back race for it, and one wins. The run's
  `vars` come from the row, so they say which.

A message wait (its run's own `message.<state>`) is also resolved by its message's recorded
state (`notiflow_wait_recorded_v1`, with RECORDED_PARAMS) where it would otherwise time out, so
a report or mark whose post was lost (the process died between its commit and the post) never
leaves it `received: false`.

Locks are taken run row first, then wait row, by every statement that takes both (RESUME_SQL,
WAIT_TIME_OUT_SQL, and the engine's release followed by PARK_SQL), so they cannot deadlock.

What a wait does to its run (lock it, resume it, park it; whether it ended) is the trigger state
machine's: its functions, called here by the names triggers/sql.py gives them
(RUNS_HOLD_FUNCTION, RUNS_RESUME_FUNCTION, RUN_PARK_FUNCTION, RUN_ENDED_FUNCTION; the tests hold
every versioned name here to an installed, current version). These statements name no run table
and no run status. The clock is the database's `statement_timestamp()` (docs/design/rules.md, rule 15).
"""

from __future__ import annotations

import json
from typing import Any

from workflows.nodes.inapp import INAPP_CHANNEL

# The states a report about a message implies: a click is an open, an in-app seen an open, a
# read a seen and an open; any other state only itself. A report is posted as each
# (waits/messages.py) and, recorded, reaches each (notiflow_wait_recorded_v1, which is given
# this as its parameter `implied`).
IMPLIED: dict[str, tuple[str, ...]] = {
    "clicked": ("clicked", "opened"),
    "seen": ("seen", "opened"),
    "read": ("read", "seen", "opened"),
}

# The parameters of notiflow_wait_recorded_v1 that every statement calling it passes: the states
# a report implies, and the channel an inbox mark's event names.
RECORDED_PARAMS: dict[str, Any] = {
    "implied": json.dumps(IMPLIED),
    "inbox_channel": INAPP_CHANNEL,
}

# An event's row; idempotent by its id. Returns the row (new or not) and whether it is new.
EVENT_STORE_SQL = """
WITH stored AS (
    INSERT INTO received_event (event_id, name, data, data_hash, created_by, api_key_id,
                                workflows, created_at)
    VALUES (%(event_id)s, %(name)s, %(data)s::jsonb, %(data_hash)s, %(created_by)s,
            %(api_key_id)s, %(workflows)s::text[], statement_timestamp())
    ON CONFLICT (event_id) DO NOTHING
    RETURNING id, data_hash, created_at, true AS created
)
SELECT id, data_hash, created_at, created FROM stored
UNION ALL
SELECT id, data_hash, created_at, false FROM received_event
WHERE event_id = %(event_id)s AND NOT EXISTS (SELECT 1 FROM stored)
"""

# The key sets the open waits for a name match by (small: one per distinct `match` shape).
SHAPES_SQL = "SELECT keys_text FROM wait_shape WHERE name = %(name)s"

# Resume the runs an event matches: the open waits for its name with one of its match hashes,
# of the workflows the poster may reach (NULL: all). Each run row is locked first (in id
# order), then its wait resolved; a run `waiting` at that node is made due now and its nudge
# recorded, with its status event. A run still running the node's first step (`processing`)
# keeps its resolved wait: PARK_SQL, after that step's release, sees it and does not park.
RESUME_SQL = """
WITH candidate AS (
    SELECT w.id, w.trigger_id FROM event_wait w
    WHERE w.name = %(name)s AND w.match_hash = ANY(%(hashes)s) AND w.resolved_at IS NULL
      AND (%(workflows)s::text[] IS NULL OR w.workflow_id IN (
          SELECT id FROM workflows_workflow WHERE key = ANY(%(workflows)s::text[])))
),
held AS (
    SELECT h.held_id AS id
    FROM notiflow_runs_hold_v1(ARRAY(SELECT trigger_id FROM candidate), false) h
    WHERE NOT h.gone
),
resolved AS (
    UPDATE event_wait w
    SET resolved_at = statement_timestamp(), received = true, event = %(event)s::jsonb,
        resolved_by = %(actor)s, trace_context = %(trace_context)s
    FROM held
    WHERE w.trigger_id = held.id AND w.id IN (SELECT id FROM candidate) AND w.resolved_at IS NULL
    RETURNING w.trigger_id, w.node_id, 'event ' || %(name)s || ' ' || %(event_id)s AS reason,
              %(actor)s::text AS actor
),
resumed AS (
    SELECT r.resumed_id, r.route_queue, r.route_priority
    FROM notiflow_runs_resume_v1((
        SELECT COALESCE(jsonb_agg(jsonb_build_object(
                   'run_id', trigger_id, 'node_id', node_id, 'reason', reason, 'actor', actor)),
               '[]'::jsonb)
        FROM resolved)) AS r
)
SELECT (SELECT count(*) FROM resolved) AS resolved, r.resumed_id, r.route_queue, r.route_priority
FROM (SELECT 1) one
LEFT JOIN resumed r ON true
"""

# A wait's timeout under the lease `token` (the timeout task: waits/work.py), fenced: resolved as
# timed out (a message wait whose message's state is recorded as received, with it:
# notiflow_wait_recorded_v1), its lease cleared, and, when its run is `waiting` at the node, the
# run resumed by the state machine (`resumed`, as in RESUME_SQL: due now, its nudge recorded, its
# status event), whose route this answers. A run being worked on (its row locked) is not waited
# for: nothing is written (the caller gives the wait back: wait_give_back.sql); the wait of a run that ended
# (cancelled) or is gone is closed without resuming anything. The run row is locked first.
WAIT_TIME_OUT_SQL = """
WITH due AS (
    SELECT w.id, w.trigger_id,
           notiflow_wait_recorded_v1(w.name, w.match, w.trigger_id, %(implied)s::jsonb,
                                     %(inbox_channel)s::text) AS recorded
    FROM event_wait w
    WHERE w.id = %(id)s AND w.leased_by = %(token)s AND w.resolved_at IS NULL
),
held AS (
    SELECT h.held_id AS id FROM notiflow_runs_hold_v1(ARRAY(SELECT trigger_id FROM due), true) h
),
resolved AS (
    UPDATE event_wait w
    SET resolved_at = statement_timestamp(), received = due.recorded IS NOT NULL,
        timed_out = due.recorded IS NULL, event = due.recorded,
        resolved_by = CASE WHEN due.recorded IS NULL THEN 'timeout' ELSE 'recorded' END,
        lease_until = NULL, leased_by = ''
    FROM due
    WHERE w.id = due.id AND due.trigger_id IN (SELECT id FROM held)
    RETURNING w.trigger_id, w.node_id,
              CASE WHEN w.received THEN 'recorded ' || w.name || ' ' || (w.event ->> 'id')
                   ELSE 'wait timed out' END AS reason,
              'sweeper' AS actor
),
resumed AS (
    SELECT r.resumed_id, r.route_queue, r.route_priority
    FROM notiflow_runs_resume_v1((
        SELECT COALESCE(jsonb_agg(jsonb_build_object(
                   'run_id', trigger_id, 'node_id', node_id, 'reason', reason, 'actor', actor)),
               '[]'::jsonb)
        FROM resolved)) AS r
)
SELECT true AS closed, r.resumed_id, r.route_queue, r.route_priority
FROM resolved
LEFT JOIN resumed r ON r.resumed_id = resolved.trigger_id
"""

# A run's wait at a node, registered once (a step run again finds the first one), with its
# match shape. Returns the row.
WAIT_REGISTER_SQL = """
WITH shape AS (
    INSERT INTO wait_shape (name, keys, keys_text)
    VALUES (%(name)s, %(keys)s::jsonb, %(keys_text)s)
    ON CONFLICT (name, keys_text) DO NOTHING
),
registered AS (
    INSERT INTO event_wait (trigger_id, node_id, workflow_id, name, match, match_hash, deadline,
                            created_at, received, timed_out, resolved_by)
    VALUES (%(trigger_id)s, %(node_id)s, %(workflow_id)s, %(name)s, %(match)s::jsonb,
            %(match_hash)s, %(deadline)s, statement_timestamp(), false, false, '')
    ON CONFLICT (trigger_id, node_id) DO NOTHING
    RETURNING created_at, resolved_at, received, timed_out, event, deadline, trace_context
)
SELECT created_at, resolved_at, received, timed_out, event, deadline, trace_context FROM registered
UNION ALL
SELECT created_at, resolved_at, received, timed_out, event, deadline, trace_context FROM event_wait
WHERE trigger_id = %(trigger_id)s AND node_id = %(node_id)s
  AND NOT EXISTS (SELECT 1 FROM registered)
"""

# An event that came first: the newest with the wait's name whose data holds every match value
# (compared as text, as `->>` gives it), received at most `lookback` before the wait was
# registered and posted by a key that could reach the run's workflow (`workflows` NULL: any),
# else, for a message wait, its message's recorded state (notiflow_wait_recorded_v1: a report
# whose post was lost); resolves the wait with it if still open. Bounded whatever the events of the name: a
# range scan of received_event_name_idx (name, created_at DESC) from the newest, reading at most
# %(read_max)s events (`recent`), which are then matched.
WAIT_LOOKBACK_SQL = """
WITH wait AS (
    SELECT w.id, w.name, w.match, w.created_at, wf.key AS workflow,
           notiflow_wait_recorded_v1(w.name, w.match, w.trigger_id, %(implied)s::jsonb,
                                     %(inbox_channel)s::text) AS recorded
    FROM event_wait w LEFT JOIN workflows_workflow wf ON wf.id = w.workflow_id
    WHERE w.trigger_id = %(trigger_id)s AND w.node_id = %(node_id)s AND w.resolved_at IS NULL
),
recent AS (
    SELECT e.event_id, e.name, e.data, e.created_at, e.workflows FROM received_event e
    WHERE e.name = (SELECT name FROM wait)
      AND e.created_at >= (SELECT created_at FROM wait) - %(lookback)s * interval '1 second'
    ORDER BY e.created_at DESC
    LIMIT %(read_max)s
),
found AS (
    SELECT e.event_id, e.name, e.data, e.created_at FROM recent e, wait
    WHERE (e.workflows IS NULL OR wait.workflow = ANY(e.workflows))
      AND NOT EXISTS (
          SELECT 1 FROM jsonb_each_text(wait.match) m
          WHERE (e.data ->> m.key) IS DISTINCT FROM m.value)
    ORDER BY e.created_at DESC
    LIMIT 1
)
UPDATE event_wait w
SET resolved_at = statement_timestamp(), received = true,
    resolved_by = CASE WHEN found.event_id IS NULL THEN 'recorded' ELSE 'lookback' END,
    event = CASE WHEN found.event_id IS NULL THEN wait.recorded
                 ELSE jsonb_build_object('id', found.event_id, 'name', found.name,
                                         'data', found.data, 'received_at', found.created_at)
            END
FROM wait LEFT JOIN found ON true
WHERE w.id = wait.id AND w.resolved_at IS NULL
  AND (found.event_id IS NOT NULL OR wait.recorded IS NOT NULL)
"""

# A wait whose deadline passed, closed by the node itself (a run claimed again at the node
# before the sweeper got to it): timed out, or, a message wait whose message's state is
# recorded, received with it (notiflow_wait_recorded_v1), as WAIT_TIME_OUT_SQL does.
WAIT_EXPIRE_SQL = """
WITH wait AS (
    SELECT w.id,
           notiflow_wait_recorded_v1(w.name, w.match, w.trigger_id, %(implied)s::jsonb,
                                     %(inbox_channel)s::text) AS recorded
    FROM event_wait w
    WHERE w.trigger_id = %(trigger_id)s AND w.node_id = %(node_id)s AND w.resolved_at IS NULL
      AND w.deadline <= statement_timestamp()
)
UPDATE event_wait w
SET resolved_at = statement_timestamp(), received = wait.recorded IS NOT NULL,
    timed_out = wait.recorded IS NULL, event = wait.recorded,
    resolved_by = CASE WHEN wait.recorded IS NULL THEN 'timeout' ELSE 'recorded' END
FROM wait
WHERE w.id = wait.id AND w.resolved_at IS NULL
"""

# The open waits of runs a cancel stopped, closed in the cancel's transaction (waits_cancel):
# neither resumed nor timed out, and no more listed as waiting.
WAITS_CANCEL_SQL = """
UPDATE event_wait SET resolved_at = statement_timestamp(), resolved_by = 'cancelled'
WHERE trigger_id = ANY(%(trigger_ids)s::uuid[]) AND resolved_at IS NULL
"""

WAIT_READ_SQL = """
SELECT created_at, resolved_at, received, timed_out, event, deadline, trace_context FROM event_wait
WHERE trigger_id = %(trigger_id)s AND node_id = %(node_id)s
"""

# After the step's release (in its transaction: NodeRun.writes), the run at the node goes from
# `enqueued` (due at the deadline) to `waiting`, with its status event; unless its wait was
# resolved meanwhile, and then it is due now: the state machine's park, told whether the wait is
# over. The release locked the run row already.
PARK_SQL = """
SELECT notiflow_run_park_v1(run_id => %(trigger_id)s::uuid, at_node => %(node_id)s::text,
                            wait_over => w.resolved_at IS NOT NULL,
                            reason => 'waiting for ' || %(name)s::text)
FROM event_wait w
WHERE w.trigger_id = %(trigger_id)s::uuid AND w.node_id = %(node_id)s::text
"""

# Events older than the longest lookback any node declares; waits resolved before the cutoff.
EVENTS_PURGE_SQL = """
WITH old AS (
    SELECT id FROM received_event WHERE created_at < %(cutoff)s LIMIT %(batch)s
)
DELETE FROM received_event WHERE id IN (SELECT id FROM old)
"""

WAITS_PURGE_SQL = """
WITH old AS (
    SELECT w.id FROM event_wait w
    WHERE w.resolved_at < %(cutoff)s
      AND notiflow_run_ended_v1(w.trigger_id)
    LIMIT %(batch)s
)
DELETE FROM event_wait WHERE id IN (SELECT id FROM old)
"""

# What the two purges above would delete, for `purge_events --dry-run` (the same predicates).
EVENTS_PURGE_COUNT_SQL = """
SELECT count(*) FROM received_event WHERE created_at < %(cutoff)s
"""

WAITS_PURGE_COUNT_SQL = """
SELECT count(*) FROM event_wait w
WHERE w.resolved_at < %(cutoff)s AND notiflow_run_ended_v1(w.trigger_id)
"""
