WITH r AS (
    SELECT gen_random_uuid() AS id, x.run ->> 0 AS key, x.run ->> 1 AS hash,
           x.run ->> 2 AS recipient, $1::text AS payload,
           $2::int AS priority, $3::text AS cancellation_key,
           ''::text AS locale
    FROM json_array_elements($4::json) AS x (run)
), target AS (
    SELECT w.id AS workflow_id, w.active, v.id AS version_id, w.queue,
           EXISTS (SELECT 1 FROM worker WHERE stopped_at IS NULL AND last_seen_at > statement_timestamp() - $5 * interval '1 second' AND w.queue = ANY(queues)) AS served,
           w.priority, v.definition ->> 'entry_node_id' AS entry_node_id
    FROM workflows_workflow w
    LEFT JOIN workflows_workflowversion v ON v.id = w.current_version_id
    WHERE w.key = $6
), inserted AS (
    INSERT INTO trigger_instance (id, workflow_id, workflow_version_id, idempotency_key, request_hash, cancellation_key, payload, recipient, locale, status, current_node_id, vars, priority, attempts, available_at, lease_until, leased_by, nudged_at, last_error, created_by, created_at, updated_at, completed_at, deleted_at, delete_reason)
    SELECT r.id, target.workflow_id, target.version_id, r.key, r.hash, r.cancellation_key, r.payload::jsonb, COALESCE(r.recipient, ''), COALESCE(r.locale, ''), $7::text, target.entry_node_id, '{}'::jsonb, COALESCE(r.priority, target.priority), 0, statement_timestamp(), NULL, '', statement_timestamp(), '', $8, statement_timestamp(), statement_timestamp(), NULL, NULL, ''
    FROM r CROSS JOIN target
    WHERE target.active AND target.version_id IS NOT NULL
      AND (target.served OR NOT $9)
    ORDER BY r.key
    ON CONFLICT (workflow_id, idempotency_key) WHERE deleted_at IS NULL DO NOTHING
    RETURNING id, idempotency_key, priority, current_node_id
), created_event AS (
    INSERT INTO trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
    SELECT id, '', $7::text, 'created', $8, current_node_id FROM inserted
)
SELECT target.workflow_id, target.active, target.version_id IS NOT NULL, target.queue,
       target.served, inserted.id, inserted.idempotency_key, inserted.priority
FROM target LEFT JOIN inserted ON true
