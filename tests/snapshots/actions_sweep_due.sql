-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- Running bulk actions under no lease whose next chunk is due (or about to be, within the
-- look-ahead) and whose chunk task was never published, or was long ago and nobody took it:
-- that task was lost (only while `renudge_lost`, the back-pressure rule). Oldest due first, each
-- with its countdown; its queue and priority are the chunk task's own (NULL: the defaults).
UPDATE trigger_action t SET nudged_at = statement_timestamp()
WHERE id IN (
    SELECT id FROM trigger_action
    WHERE status = %(ac_running)s::text AND lease_until IS NULL
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
          NULL::text, NULL::integer
