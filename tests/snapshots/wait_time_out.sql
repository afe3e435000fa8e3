-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
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
