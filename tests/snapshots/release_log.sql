WITH released AS (
    UPDATE trigger_instance
    SET status = $1,
        current_node_id = $2,
        vars = vars || $3::jsonb,
        attempts = $4,
        available_at = $5,
        lease_until = NULL,
        leased_by = '',
        nudged_at = CASE WHEN $6 THEN now() END,
        last_error = $7,
        completed_at = CASE WHEN $8 THEN now() END,
        updated_at = now()
    WHERE id = $9 AND status = $10::text AND leased_by = $11
    RETURNING id, workflow_id, priority
), release_event AS (
    INSERT INTO trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
    SELECT id, $10::text, $1, $12, $11, $13 FROM released
), also_0 AS (
INSERT INTO step_log (trigger_id, workflow_id, node_id, node_type, attempt, started_at,
                      finished_at, input, output, success, error)
SELECT id, $14, $15::text, $16,
       1 + COALESCE((SELECT max(attempt) FROM step_log
                     WHERE trigger_id = released.id AND node_id = $15::text), 0),
       $17, $18, $19::jsonb, $20::jsonb,
       $21, $22
FROM released
)
SELECT w.queue, released.priority
FROM released JOIN workflows_workflow w ON w.id = released.workflow_id
