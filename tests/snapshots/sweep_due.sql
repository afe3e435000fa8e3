-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- Runs due (or about to be, within the look-ahead) and never nudged, or nudged long ago and
-- still not claimed: that nudge was lost (only while `renudge_lost`, the back-pressure rule).
-- Most urgent first, then longest due; each with its countdown on the database's clock and
-- its route: its workflow's queue as it is now, its priority (docs/design/rules.md, rules 1, 5, 11).
UPDATE trigger_instance t SET nudged_at = statement_timestamp()
WHERE id IN (
    SELECT id FROM trigger_instance
    WHERE status = %(st_enqueued)s::text
      AND available_at <= statement_timestamp() + %(lookahead)s * interval '1 second'
      AND deleted_at IS NULL
      AND (nudged_at IS NULL
           OR (%(renudge_lost)s
               AND available_at < statement_timestamp() - %(renudge)s * interval '1 second'
               AND nudged_at < statement_timestamp() - %(renudge)s * interval '1 second'))
    ORDER BY priority DESC, available_at
    LIMIT %(batch)s
    FOR UPDATE SKIP LOCKED
)
RETURNING t.id, extract(epoch FROM t.available_at - statement_timestamp())::float8,
          (SELECT w.queue FROM workflows_workflow w WHERE w.id = t.workflow_id), t.priority
