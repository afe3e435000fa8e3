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
UPDATE send_ledger SET send_count = send_count - 1
WHERE trigger_id = $14 AND node_id = $15
  AND status = $16::text AND send_count > 0
), also_1 AS (
INSERT INTO step_log (trigger_id, workflow_id, node_id, node_type, attempt, started_at,
                      finished_at, input, output, success, error)
SELECT id, $17, $18::text, $19,
       1 + COALESCE((SELECT max(attempt) FROM step_log
                     WHERE trigger_id = released.id AND node_id = $18::text), 0),
       $20, $21, $22::jsonb, $23::jsonb,
       $24, $25
FROM released
), outbox AS (
INSERT INTO outbox_event (event_id, type, trigger_id, workflow_key, data, time)
SELECT e.event_id, e.type, e.trigger_id, e.workflow_key, e.data, now()
FROM ROWS FROM (jsonb_to_recordset($26::jsonb)
                AS (event_id uuid, type text, trigger_id uuid, workflow_key text, data jsonb,
                    gate text))
     WITH ORDINALITY AS e(event_id, type, trigger_id, workflow_key, data, gate, n)
WHERE EXISTS (SELECT 1 FROM webhook_endpoint) AND (EXISTS (SELECT 1 FROM released)) AND EXISTS (SELECT 1 FROM webhook_endpoint w WHERE (e.type = ANY (w.events) OR '*' = ANY (w.events)) AND (w.workflows = '{}' OR e.workflow_key = ANY (w.workflows)))
ORDER BY e.n
RETURNING id, type, workflow_key
), outbox_deliveries AS (
INSERT INTO webhook_delivery (event_id, endpoint_id, status, attempts, available_at, nudged_at,
                              last_error, leased_by, created_at, updated_at)
SELECT outbox.id, w.id, $27, 0, now(),
       CASE WHEN w.disabled_at IS NULL THEN now() END, '', '', now(), now()
FROM outbox JOIN webhook_endpoint w ON (outbox.type = ANY (w.events) OR '*' = ANY (w.events)) AND (w.workflows = '{}' OR outbox.workflow_key = ANY (w.workflows))
RETURNING id, endpoint_id
)
SELECT w.queue, released.priority, (SELECT array_agg(d.id) FROM outbox_deliveries d JOIN webhook_endpoint w ON w.id = d.endpoint_id WHERE w.disabled_at IS NULL)
FROM released JOIN workflows_workflow w ON w.id = released.workflow_id
