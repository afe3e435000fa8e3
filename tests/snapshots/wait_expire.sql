-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
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
