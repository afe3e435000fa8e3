-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
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
