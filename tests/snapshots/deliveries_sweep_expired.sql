-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- Pending deliveries whose lease expired (their worker died or hung mid-POST), of enabled
-- endpoints only, nudged at once whatever the line.
UPDATE webhook_delivery t SET nudged_at = statement_timestamp()
WHERE id IN (
    SELECT id FROM webhook_delivery
    WHERE status = %(st_pending)s::text
      AND notiflow_lease_expired_v1(lease_until, statement_timestamp())
      AND endpoint_id IN (SELECT id FROM webhook_endpoint WHERE disabled_at IS NULL)
      AND (nudged_at IS NULL OR nudged_at < statement_timestamp() - %(renudge)s * interval '1 second')
    ORDER BY lease_until
    LIMIT %(batch)s
    FOR UPDATE SKIP LOCKED
)
RETURNING t.id, 0::float8, NULL::text, NULL::integer
