-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- Pending deliveries under no lease, due (or about to be, within the look-ahead) and never
-- nudged, or nudged long ago and still not claimed (only while `renudge_lost`), of enabled
-- endpoints only: oldest first, each with its countdown. One queue and one priority for all
-- (events.dispatch routes them): no route of their own.
UPDATE webhook_delivery t SET nudged_at = statement_timestamp()
WHERE id IN (
    SELECT id FROM webhook_delivery
    WHERE status = %(st_pending)s::text AND lease_until IS NULL
      AND available_at <= statement_timestamp() + %(lookahead)s * interval '1 second'
      AND endpoint_id IN (SELECT id FROM webhook_endpoint WHERE disabled_at IS NULL)
      AND (nudged_at IS NULL
           OR (%(renudge_lost)s
               AND available_at < statement_timestamp() - %(renudge)s * interval '1 second'
               AND nudged_at < statement_timestamp() - %(renudge)s * interval '1 second'))
    ORDER BY available_at
    LIMIT %(batch)s
    FOR UPDATE SKIP LOCKED
)
RETURNING t.id, extract(epoch FROM t.available_at - statement_timestamp())::float8, NULL::text, NULL::integer
