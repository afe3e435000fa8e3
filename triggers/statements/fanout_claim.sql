-- A chunk task takes its fan-out under a lease: only if it is running, due and free (no lease,
-- or one that expired); a fan-out under a live lease or locked (a cancel under way) is skipped,
-- never waited for. The lease is on the database's clock; the claim clears nudged_at, so the
-- sweep of expired leases nudges it at once should this worker die.
UPDATE recipient_fanout t
SET lease_until = statement_timestamp() + %(lease)s * interval '1 second', leased_by = %(token)s,
    nudged_at = NULL
WHERE id IN (
    SELECT id FROM recipient_fanout
    WHERE id = %(id)s AND status = %(fo_running)s::text AND available_at <= statement_timestamp()
      AND (lease_until IS NULL OR notiflow_lease_expired_v1(lease_until, statement_timestamp()))
    FOR UPDATE SKIP LOCKED
)
RETURNING t.id
