"""The statements of event waits (docs/design.md, "Waiting for events"), each whole but for the
parts two of them share, named once below (`_RESUMED`).

Exactly once rests on two rules:

* **Commit, then look.** A wait is registered (committed) before the node looks back for an
  event that came first; an event is stored (committed) before it looks for the waits it
  resumes. Whichever commits second sees the other, so no pairing is missed; both may see it,
  and then the second rule picks one.
* **A wait is resolved by one conditional UPDATE** (`resolved_at IS NULL`): an event, another
  delivery of it, the timeout and the node's own look-back race for it, and one wins. The run's
  `vars` come from the row, so they say which.

Locks are taken run row first, then wait row, by every statement that takes both (RESUME_SQL,
TIMEOUTS_SQL, and the engine's release followed by PARK_SQL), so they cannot deadlock.
"""

from __future__ import annotations

# The shared tail of the statements that resolve waits (RESUME_SQL, TIMEOUTS_SQL): after a CTE
# `resolved` returning (trigger_id, node_id, reason, actor) for each wait it resolved, the CTEs
# `resumed` (the run `waiting` at that node made due now, its nudge recorded) and `logged` (its
# status event, with the reason and actor of its wait's resolution).
_RESUMED = """resumed AS (
    UPDATE trigger_instance t
    SET status = 'enqueued', available_at = now(), nudged_at = now(), updated_at = now()
    FROM resolved
    WHERE t.id = resolved.trigger_id AND t.status = 'waiting'
      AND t.current_node_id = resolved.node_id
    RETURNING t.id, t.workflow_id, t.priority, t.current_node_id, resolved.reason, resolved.actor
),
logged AS (
    INSERT INTO trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
    SELECT id, 'waiting', 'enqueued', reason, actor, current_node_id FROM resumed
)"""

# An event's row; idempotent by its id. Returns the row (new or not) and whether it is new.
EVENT_STORE_SQL = """
WITH stored AS (
    INSERT INTO received_event (event_id, name, data, data_hash, created_by, created_at)
    VALUES (%(event_id)s, %(name)s, %(data)s::jsonb, %(data_hash)s, %(created_by)s, now())
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
RESUME_SQL = f"""
WITH candidate AS (
    SELECT w.id, w.trigger_id FROM event_wait w
    WHERE w.name = %(name)s AND w.match_hash = ANY(%(hashes)s) AND w.resolved_at IS NULL
      AND (%(workflows)s::text[] IS NULL OR w.workflow_id IN (
          SELECT id FROM workflows_workflow WHERE key = ANY(%(workflows)s::text[])))
),
held AS (
    SELECT t.id FROM trigger_instance t
    WHERE t.id IN (SELECT trigger_id FROM candidate)
    ORDER BY t.id
    FOR UPDATE
),
resolved AS (
    UPDATE event_wait w
    SET resolved_at = now(), received = true, event = %(event)s::jsonb,
        resolved_by = %(actor)s
    FROM held
    WHERE w.trigger_id = held.id AND w.id IN (SELECT id FROM candidate) AND w.resolved_at IS NULL
    RETURNING w.trigger_id, w.node_id, 'event ' || %(name)s || ' ' || %(event_id)s AS reason,
              %(actor)s::text AS actor
),
{_RESUMED}
SELECT (SELECT count(*) FROM resolved) AS resolved, r.id, w.queue, r.priority
FROM (SELECT 1) one
LEFT JOIN resumed r ON true
LEFT JOIN workflows_workflow w ON w.id = r.workflow_id
"""  # noqa: S608 (a constant fragment, values as parameters)

# The open waits past their deadline, a batch: resolved as timed out and, when the run is
# `waiting`, made due now with its nudge recorded and its status event. A run being worked
# on is skipped (SKIP LOCKED) for the next sweep; the wait of a run that ended (cancelled) is
# closed without resuming anything.
TIMEOUTS_SQL = f"""
WITH due AS (
    SELECT w.id, w.trigger_id FROM event_wait w
    WHERE w.resolved_at IS NULL AND w.deadline <= now()
    ORDER BY w.deadline
    LIMIT %(batch)s
),
held AS (
    SELECT t.id, t.status FROM trigger_instance t
    WHERE t.id IN (SELECT trigger_id FROM due)
      AND t.status IN ('waiting', 'completed', 'failed', 'cancelled')
    ORDER BY t.id
    FOR UPDATE SKIP LOCKED
),
gone AS (
    SELECT d.id FROM due d
    WHERE NOT EXISTS (SELECT 1 FROM trigger_instance t WHERE t.id = d.trigger_id)
),
resolved AS (
    UPDATE event_wait w
    SET resolved_at = now(), timed_out = true, resolved_by = 'timeout'
    WHERE w.resolved_at IS NULL
      AND (w.id IN (SELECT id FROM gone)
           OR (w.id IN (SELECT id FROM due) AND w.trigger_id IN (SELECT id FROM held)))
    RETURNING w.trigger_id, w.node_id, 'wait timed out' AS reason, 'sweeper' AS actor
),
{_RESUMED}
SELECT r.id, w.queue, r.priority
FROM resumed r JOIN workflows_workflow w ON w.id = r.workflow_id
"""  # noqa: S608 (a constant fragment, values as parameters)

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
            %(match_hash)s, %(deadline)s, now(), false, false, '')
    ON CONFLICT (trigger_id, node_id) DO NOTHING
    RETURNING created_at, resolved_at, received, timed_out, event, deadline
)
SELECT created_at, resolved_at, received, timed_out, event, deadline FROM registered
UNION ALL
SELECT created_at, resolved_at, received, timed_out, event, deadline FROM event_wait
WHERE trigger_id = %(trigger_id)s AND node_id = %(node_id)s
  AND NOT EXISTS (SELECT 1 FROM registered)
"""

# An event that came first: the newest with the wait's name whose data holds every match value
# (compared as text, as `->>` gives it), received at most `lookback` before the wait was
# registered; resolves the wait with it if still open. Returns the wait row.
WAIT_LOOKBACK_SQL = """
WITH wait AS (
    SELECT id, name, match, created_at FROM event_wait
    WHERE trigger_id = %(trigger_id)s AND node_id = %(node_id)s AND resolved_at IS NULL
),
found AS (
    SELECT e.event_id, e.name, e.data, e.created_at FROM received_event e, wait
    WHERE e.name = wait.name
      AND e.created_at >= wait.created_at - %(lookback)s * interval '1 second'
      AND NOT EXISTS (
          SELECT 1 FROM jsonb_each_text(wait.match) m
          WHERE (e.data ->> m.key) IS DISTINCT FROM m.value)
    ORDER BY e.created_at DESC
    LIMIT 1
)
UPDATE event_wait w
SET resolved_at = now(), received = true, resolved_by = 'lookback',
    event = jsonb_build_object('id', found.event_id, 'name', found.name, 'data', found.data,
                               'received_at', found.created_at)
FROM found, wait
WHERE w.id = wait.id AND w.resolved_at IS NULL
"""

# A wait whose deadline passed, closed by the node itself (a run claimed again at the node
# before the sweeper got to it).
WAIT_EXPIRE_SQL = """
UPDATE event_wait SET resolved_at = now(), timed_out = true, resolved_by = 'timeout'
WHERE trigger_id = %(trigger_id)s AND node_id = %(node_id)s AND resolved_at IS NULL
  AND deadline <= now()
"""

# The open waits of runs a cancel stopped, closed in the cancel's transaction (waits_cancel):
# neither resumed nor timed out, and no more listed as waiting.
WAITS_CANCEL_SQL = """
UPDATE event_wait SET resolved_at = now(), resolved_by = 'cancelled'
WHERE trigger_id = ANY(%(trigger_ids)s::uuid[]) AND resolved_at IS NULL
"""

WAIT_READ_SQL = """
SELECT created_at, resolved_at, received, timed_out, event, deadline FROM event_wait
WHERE trigger_id = %(trigger_id)s AND node_id = %(node_id)s
"""

# After the step's release (in its transaction: NodeRun.writes), the run at the node goes from
# `enqueued` (due at the deadline) to `waiting`, with its status event; unless its wait was
# resolved meanwhile, and then it is due now. The release locked the run row already.
PARK_SQL = """
WITH wait AS (
    SELECT resolved_at FROM event_wait
    WHERE trigger_id = %(trigger_id)s AND node_id = %(node_id)s
),
parked AS (
    UPDATE trigger_instance t
    SET status = CASE WHEN wait.resolved_at IS NULL THEN 'waiting' ELSE 'enqueued' END,
        available_at = CASE WHEN wait.resolved_at IS NULL THEN t.available_at ELSE now() END,
        nudged_at = CASE WHEN wait.resolved_at IS NULL THEN t.nudged_at ELSE NULL END
    FROM wait
    WHERE t.id = %(trigger_id)s AND t.status = 'enqueued' AND t.current_node_id = %(node_id)s
    RETURNING t.status
)
INSERT INTO trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
SELECT %(trigger_id)s, 'enqueued', 'waiting', 'waiting for ' || %(name)s, 'engine', %(node_id)s
FROM parked WHERE parked.status = 'waiting'
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
      AND NOT EXISTS (
          SELECT 1 FROM trigger_instance t
          WHERE t.id = w.trigger_id AND t.status NOT IN ('completed', 'failed', 'cancelled'))
    LIMIT %(batch)s
)
DELETE FROM event_wait WHERE id IN (SELECT id FROM old)
"""
