-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- Running bulk actions whose lease expired (the worker doing a chunk died or hung: its chunk
-- was rolled back), nudged at once whatever the line, as in actions_sweep_due.
UPDATE trigger_action t SET nudged_at = statement_timestamp()
WHERE id IN (
    SELECT id FROM trigger_action
    WHERE status = %(ac_running)s::text
      AND notiflow_lease_expired_v1(lease_until, statement_timestamp())
      AND (nudged_at IS NULL OR nudged_at < statement_timestamp() - %(renudge)s * interval '1 second')
    ORDER BY lease_until
    LIMIT %(batch)s
    FOR UPDATE SKIP LOCKED
)
RETURNING t.id, 0::float8, NULL::text, NULL::integer
