-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- Active schedules whose lease expired (the worker firing a chunk died or hung: the chunk was
-- rolled back), nudged at once whatever the line, with their route as in schedules_sweep_due.
UPDATE schedule t SET nudged_at = statement_timestamp()
WHERE id IN (
    SELECT id FROM schedule
    WHERE active AND next_local <> ''
      AND notiflow_lease_expired_v1(lease_until, statement_timestamp())
      AND (nudged_at IS NULL OR nudged_at < statement_timestamp() - %(renudge)s * interval '1 second')
    ORDER BY lease_until
    LIMIT %(batch)s
    FOR UPDATE SKIP LOCKED
)
RETURNING t.id, 0::float8,
          (SELECT w.queue FROM workflows_workflow w WHERE w.key = t.workflow_key),
          (SELECT w.priority FROM workflows_workflow w WHERE w.key = t.workflow_key)
