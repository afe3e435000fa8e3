-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- Runs whose lease expired (their worker died or hung), nudged at once whatever the line; the
-- claim clears nudged_at, so the first sweep after expiry takes them (docs/design/rules.md, rule 1).
UPDATE trigger_instance t SET nudged_at = statement_timestamp()
WHERE id IN (
    SELECT id FROM trigger_instance
    WHERE status = %(st_processing)s::text
      AND notiflow_lease_expired_v1(lease_until, statement_timestamp())
      AND deleted_at IS NULL
      AND (nudged_at IS NULL OR nudged_at < statement_timestamp() - %(renudge)s * interval '1 second')
    ORDER BY priority DESC, lease_until
    LIMIT %(batch)s
    FOR UPDATE SKIP LOCKED
)
RETURNING t.id, 0::float8,
          (SELECT w.queue FROM workflows_workflow w WHERE w.id = t.workflow_id), t.priority
