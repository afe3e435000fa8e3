-- Open waits whose deadline passed (or is about to, within the look-ahead), under no lease,
-- whose timeout was never nudged, or was long ago and nobody took it: that nudge was lost
-- (only while `renudge_lost`, the back-pressure rule). Earliest deadline first, each with its
-- countdown to the deadline and its route: its run's workflow's queue, its run's priority
-- (NULLs for a workflow or run gone: the default queue's worker closes the wait).
UPDATE event_wait t SET nudged_at = statement_timestamp()
WHERE id IN (
    SELECT id FROM event_wait
    WHERE resolved_at IS NULL AND lease_until IS NULL
      AND deadline <= statement_timestamp() + %(lookahead)s * interval '1 second'
      AND (nudged_at IS NULL
           OR (%(renudge_lost)s
               AND deadline < statement_timestamp() - %(renudge)s * interval '1 second'
               AND nudged_at < statement_timestamp() - %(renudge)s * interval '1 second'))
    ORDER BY deadline
    LIMIT %(batch)s
    FOR UPDATE SKIP LOCKED
)
RETURNING t.id, extract(epoch FROM t.deadline - statement_timestamp())::float8,
          (SELECT w.queue FROM workflows_workflow w WHERE w.id = t.workflow_id),
          (SELECT r.priority FROM trigger_instance r WHERE r.id = t.trigger_id)
