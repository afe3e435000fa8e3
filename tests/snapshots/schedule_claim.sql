-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- A schedule's task takes it under a lease: only if it is active, has an occurrence to come,
-- is due and free (no lease, or one that expired); one under a live lease or locked (a PUT
-- under way) is skipped, never waited for. The lease is on the database's clock, which it
-- returns (the firing's "now"); the claim clears nudged_at, so the sweep of expired leases
-- nudges it at once should this worker die.
UPDATE schedule t
SET lease_until = statement_timestamp() + %(lease)s * interval '1 second', leased_by = %(token)s,
    nudged_at = NULL
WHERE id IN (
    SELECT id FROM schedule
    WHERE id = %(id)s AND active AND next_local <> '' AND available_at <= statement_timestamp()
      AND (lease_until IS NULL OR notiflow_lease_expired_v1(lease_until, statement_timestamp()))
    FOR UPDATE SKIP LOCKED
)
RETURNING t.id, statement_timestamp()
