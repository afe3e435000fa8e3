-- intake_existing.sql for many keys, (workflow_id[i], key[i]) from arrays. A statement of its
-- own: PostgreSQL plans the array form afresh on every run (its generic plan guesses ten keys
-- and loses to a custom one), which cost the one-key case as much as running it.
SELECT t.id, t.workflow_id, t.workflow_version_id, t.idempotency_key, t.request_hash,
       t.cancellation_key, t.payload, t.recipient, t.locale, t.tenant, t.status,
       t.current_node_id,
       t.vars, t.priority, t.attempts, t.available_at, t.lease_until, t.leased_by,
       t.nudged_at, t.last_error, t.created_by, t.created_at, t.updated_at, t.completed_at,
       t.deleted_at, t.delete_reason, t.trace_context, v.number
FROM (SELECT DISTINCT * FROM unnest($1::bigint[], $2::text[]))
     AS held (workflow_id, key)
JOIN trigger_instance t
  ON t.workflow_id = held.workflow_id AND t.idempotency_key = held.key AND t.deleted_at IS NULL
JOIN workflows_workflowversion v ON v.id = t.workflow_version_id
