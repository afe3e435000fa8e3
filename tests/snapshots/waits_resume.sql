-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
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
        resolved_by = %(actor)s, trace_context = %(trace_context)s
    FROM held
    WHERE w.trigger_id = held.id AND w.id IN (SELECT id FROM candidate) AND w.resolved_at IS NULL
    RETURNING w.trigger_id, w.node_id, 'event ' || %(name)s || ' ' || %(event_id)s AS reason,
              %(actor)s::text AS actor
),
resumed AS (
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
)
SELECT (SELECT count(*) FROM resolved) AS resolved, r.id, w.queue, r.priority
FROM (SELECT 1) one
LEFT JOIN resumed r ON true
LEFT JOIN workflows_workflow w ON w.id = r.workflow_id
