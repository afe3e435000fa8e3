-- Intake of many requests (POST /api/triggers/bulk/): intake.sql's statement for arrays of its
-- parameters, one element per request. The workflows are those the requests name; the runs are
-- inserted in key order, whatever the request order, so two bulk requests whose keys overlap
-- wait for each other's rows in one order and cannot deadlock; two requests of one statement
-- with the same key insert one run (ON CONFLICT DO NOTHING skips the later, which then finds
-- the first as any repeat does). One row per request, in request order.
-- intake_many_traced.sql is this statement storing the intake span's traceparent too.
WITH r AS (
    SELECT q.*, CASE WHEN COALESCE(q.recipient, '') = '' THEN true
                     ELSE EXISTS (SELECT 1 FROM recipient rc
                                  WHERE rc.key = q.recipient) END AS known
    FROM (SELECT * FROM unnest($1::int[], $2::uuid[], $3::text[],
                               $4::text[], $5::text[], $6::int[],
                               $7::text[], $8::text[],
                               $9::text[], $10::text[],
                               $11::text[])
              AS u (idx, id, workflow, key, payload, priority, cancellation_key, hash,
                    recipient, locale, tenant)) AS q
), target AS (
    SELECT w.id AS workflow_id, w.key, w.active, v.id AS version_id, v.number, w.queue,
           s.served, w.priority, v.definition ->> 'entry_node_id' AS entry_node_id
    FROM workflows_workflow w
    LEFT JOIN workflows_workflowversion v ON v.id = w.current_version_id
    CROSS JOIN LATERAL notiflow_queue_served_v1(w.queue, $12::float8) AS s (served)
    WHERE w.key IN (SELECT workflow FROM r)
), inserted AS (
    INSERT INTO trigger_instance (
        id, workflow_id, workflow_version_id, idempotency_key, request_hash, cancellation_key,
        payload, recipient, locale, tenant, status, current_node_id, vars, priority, attempts,
        available_at, lease_until, leased_by, nudged_at, last_error, created_by, created_at,
        updated_at, completed_at, deleted_at, delete_reason)
    SELECT r.id, target.workflow_id, target.version_id, r.key, r.hash, r.cancellation_key,
           r.payload::jsonb, COALESCE(r.recipient, ''), COALESCE(r.locale, ''),
           COALESCE(r.tenant, ''),
           $13::text, target.entry_node_id, '{}'::jsonb,
           COALESCE(r.priority, target.priority), 0, statement_timestamp(), NULL, '',
           statement_timestamp(), '', $14, statement_timestamp(), statement_timestamp(),
           NULL, NULL, ''
    FROM r JOIN target ON target.key = r.workflow
    WHERE target.active AND target.version_id IS NOT NULL AND r.known
      AND (target.served OR NOT $15)
    ORDER BY target.workflow_id, r.key, r.idx
    ON CONFLICT (workflow_id, idempotency_key) WHERE deleted_at IS NULL DO NOTHING
    RETURNING *
), created_event AS (
    INSERT INTO trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
    SELECT id, '', $13::text, 'created', $14, current_node_id FROM inserted
)
SELECT r.idx, r.known, target.workflow_id, target.key, target.active, target.version_id,
       target.number, target.queue, target.served,
       inserted.id, inserted.workflow_id, inserted.workflow_version_id, inserted.idempotency_key,
       inserted.request_hash, inserted.cancellation_key, inserted.payload, inserted.recipient,
       inserted.locale, inserted.tenant, inserted.status, inserted.current_node_id,
       inserted.vars,
       inserted.priority, inserted.attempts, inserted.available_at, inserted.lease_until,
       inserted.leased_by, inserted.nudged_at, inserted.last_error, inserted.created_by,
       inserted.created_at, inserted.updated_at, inserted.completed_at, inserted.deleted_at,
       inserted.delete_reason, inserted.trace_context
FROM r LEFT JOIN target ON target.key = r.workflow LEFT JOIN inserted ON inserted.id = r.id
ORDER BY r.idx
