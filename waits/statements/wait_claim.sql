-- A timeout task takes its wait under a lease: only if it is open, past its deadline and free
-- (no lease, or one that expired); a wait under a live lease or locked (an event resolving it)
-- is skipped, never waited for. The lease is on the database's clock; the claim clears
-- nudged_at, so the sweep of expired leases nudges it at once should this worker die.
UPDATE event_wait t
SET lease_until = statement_timestamp() + %(lease)s * interval '1 second', leased_by = %(token)s,
    nudged_at = NULL
WHERE id IN (
    SELECT id FROM event_wait
    WHERE id = %(id)s AND resolved_at IS NULL AND deadline <= statement_timestamp()
      AND (lease_until IS NULL OR notiflow_lease_expired_v1(lease_until, statement_timestamp()))
    FOR UPDATE SKIP LOCKED
)
RETURNING t.id
