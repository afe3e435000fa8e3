-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- Open waits whose timeout's lease expired (its worker died or hung), nudged at once whatever
-- the line, with their route as in waits_sweep_due.
UPDATE event_wait t SET nudged_at = statement_timestamp()
WHERE id IN (
    SELECT id FROM event_wait
    WHERE resolved_at IS NULL
      AND notiflow_lease_expired_v1(lease_until, statement_timestamp())
      AND (nudged_at IS NULL OR nudged_at < statement_timestamp() - %(renudge)s * interval '1 second')
    ORDER BY lease_until
    LIMIT %(batch)s
    FOR UPDATE SKIP LOCKED
)
RETURNING t.id, 0::float8,
          (SELECT w.queue FROM workflows_workflow w WHERE w.id = t.workflow_id),
          (SELECT r.priority FROM trigger_instance r WHERE r.id = t.trigger_id)
