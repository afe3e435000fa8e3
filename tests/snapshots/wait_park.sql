-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
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
