-- The run not deleted that holds a key, with its version's number: what a repeated request
-- gets (trigger_instance's columns in the model's order, as trigger_from_row reads them).
-- intake_existing_many.sql is this for many keys.
SELECT t.id, t.workflow_id, t.workflow_version_id, t.idempotency_key, t.request_hash,
       t.cancellation_key, t.payload, t.recipient, t.locale, t.tenant, t.status,
       t.current_node_id,
       t.vars, t.priority, t.attempts, t.available_at, t.lease_until, t.leased_by,
       t.nudged_at, t.last_error, t.created_by, t.created_at, t.updated_at, t.completed_at,
       t.deleted_at, t.delete_reason, t.trace_context, v.number
FROM (SELECT $1::bigint, $2::text) AS held (workflow_id, key)
JOIN trigger_instance t
  ON t.workflow_id = held.workflow_id AND t.idempotency_key = held.key AND t.deleted_at IS NULL
JOIN workflows_workflowversion v ON v.id = t.workflow_version_id
