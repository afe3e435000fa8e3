-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- Active schedules under no lease whose next step is due (or about to be, within the
-- look-ahead: an occurrence's instant in its next zone, or the time to read its zones) and whose
-- task was never published, or was long ago and nobody took it: that task was lost (only while
-- `renudge_lost`, the back-pressure rule). Oldest due first, each with its countdown and its
-- route: its workflow's queue and priority (NULLs for a workflow gone: the task records why).
UPDATE schedule t SET nudged_at = statement_timestamp()
WHERE id IN (
    SELECT id FROM schedule
    WHERE active AND next_local <> '' AND lease_until IS NULL
      AND available_at <= statement_timestamp() + %(lookahead)s * interval '1 second'
      AND (nudged_at IS NULL
           OR (%(renudge_lost)s
               AND available_at < statement_timestamp() - %(renudge)s * interval '1 second'
               AND nudged_at < statement_timestamp() - %(renudge)s * interval '1 second'))
    ORDER BY available_at
    LIMIT %(batch)s
    FOR UPDATE SKIP LOCKED
)
RETURNING t.id, extract(epoch FROM t.available_at - statement_timestamp())::float8,
          (SELECT w.queue FROM workflows_workflow w WHERE w.key = t.workflow_key),
          (SELECT w.priority FROM workflows_workflow w WHERE w.key = t.workflow_key)
