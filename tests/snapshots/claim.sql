WITH prior AS (
    -- A soft-deleted trigger is never claimed (docs/design.md, rule 12). The test is made on
    -- `prior`'s row in `claimed`, not here: a `deleted_at IS NULL` beside `id = ...` lets the
    -- planner pick the partial unique index (workflow, idempotency_key) WHERE deleted_at IS NULL
    -- over the primary key and scan it whole, which it did on a table not yet analysed.
    SELECT id, status, deleted_at FROM trigger_instance
    WHERE id = $1
      AND ((status = $2::text AND available_at <= now())
           OR (status = $3::text AND notiflow_lease_expired_v1(lease_until, now())))
    FOR UPDATE
), claimed AS (
    UPDATE trigger_instance t
    SET status = $3::text, lease_until = now() + $4 * interval '1 second',
        leased_by = $5, nudged_at = NULL, updated_at = now(),
        -- A lease that expired is an attempt that died with its worker: it counts, so a node
        -- that kills every worker running it ends failed instead of being reclaimed forever.
        attempts = t.attempts + CASE WHEN prior.status = $3::text THEN 1 ELSE 0 END
    FROM prior WHERE t.id = prior.id AND prior.deleted_at IS NULL
    RETURNING t.*, prior.status AS prior_status
), claim_event AS (
    INSERT INTO trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
    SELECT id, prior_status, $3::text, CASE WHEN prior_status = $3::text THEN 'lease expired; reclaimed' ELSE 'claimed' END, $5, current_node_id FROM claimed
), also AS (
INSERT INTO send_ledger (trigger_id, node_id, idempotency_key, channel, status,
                         send_count, created_at)
SELECT claimed.id, claimed.current_node_id, claimed.id::text || ':' || claimed.current_node_id,
       node.type, $6::text, 1, now()
FROM claimed
JOIN workflows_workflowversion version ON version.id = claimed.workflow_version_id
CROSS JOIN LATERAL jsonb_to_recordset(version.definition -> 'nodes') AS node(id text, type text)
WHERE node.id = claimed.current_node_id AND node.type = ANY($7)
ON CONFLICT (trigger_id, node_id) DO UPDATE
    SET send_count = send_ledger.send_count + 1
    WHERE send_ledger.status = $6::text
RETURNING send_count
)
SELECT id, workflow_id, workflow_version_id, idempotency_key, request_hash, cancellation_key, payload, recipient, status, current_node_id, vars, priority, attempts, available_at, lease_until, leased_by, nudged_at, last_error, created_by, created_at, updated_at, completed_at, deleted_at, delete_reason, (SELECT send_count FROM also), (SELECT result FROM send_ledger
        WHERE trigger_id = claimed.id AND node_id = claimed.current_node_id
          AND status = $8::text), now() FROM claimed
