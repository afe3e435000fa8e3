-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- A chunk task takes its bulk action under a lease: only if it is running, due and free (no
-- lease, or one that expired); an action under a live lease is skipped, never waited for. The
-- lease is on the database's clock; the claim clears nudged_at, so the sweep of expired leases
-- nudges it at once should this worker die.
UPDATE trigger_action t
SET lease_until = statement_timestamp() + %(lease)s * interval '1 second', leased_by = %(token)s,
    nudged_at = NULL
WHERE id IN (
    SELECT id FROM trigger_action
    WHERE id = %(id)s AND status = %(ac_running)s::text AND available_at <= statement_timestamp()
      AND (lease_until IS NULL OR notiflow_lease_expired_v1(lease_until, statement_timestamp()))
    FOR UPDATE SKIP LOCKED
)
RETURNING t.id
