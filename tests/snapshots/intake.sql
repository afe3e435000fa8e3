-- Intake of one request (POST /api/triggers/), in one statement, one round trip, atomic on its
-- own: the request from scalar parameters, whether the recipient it names exists (true without
-- one), its workflow's current version looked up by key, whether a live worker serves the
-- workflow's queue (the registry's one rule, notiflow_queue_served_v1, inlined into this plan),
-- the run inserted if its key is new among the workflow's runs not deleted (and the queue is
-- served, unless `require_worker` is off, and the recipient exists), and its `created` event.
-- One row: the request's index, whether its recipient exists, the workflow's columns (NULL for
-- an unknown workflow), then the run's row whole (trigger_instance's columns in the model's
-- order, as triggers/steps.py trigger_from_row reads them), or NULLs when nothing was inserted.
-- intake_traced.sql is this statement storing the intake span's traceparent too.
WITH r AS (
    SELECT q.*, CASE WHEN COALESCE(q.recipient, '') = '' THEN true
                     ELSE EXISTS (SELECT 1 FROM recipient rc
                                  WHERE rc.key = q.recipient) END AS known
    FROM (SELECT $1::int AS idx, $2::uuid AS id, $3::text AS workflow,
                 $4::text AS key, $5::text AS payload, $6::int AS priority,
                 $7::text AS cancellation_key, $8::text AS hash,
                 $9::text AS recipient, $10::text AS locale,
                 $11::text AS tenant) AS q
), target AS (
    SELECT w.id AS workflow_id, w.key, w.active, v.id AS version_id, v.number, w.queue,
           s.served, w.priority, v.definition ->> 'entry_node_id' AS entry_node_id
    FROM workflows_workflow w
    LEFT JOIN workflows_workflowversion v ON v.id = w.current_version_id
    CROSS JOIN LATERAL notiflow_queue_served_v1(w.queue, $12::float8) AS s (served)
    WHERE w.key = $3
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
