-- A step that failed (its transaction rolled back): the lease under `token` cleared (fenced),
-- the firing state as it was, the reason shown, due again after `wait` seconds and not nudged,
-- so the sweep nudges it then.
UPDATE schedule
SET last_error = %(error)s::text, lease_until = NULL, leased_by = '',
    available_at = statement_timestamp() + %(wait)s * interval '1 second', nudged_at = NULL
WHERE id = %(id)s AND leased_by = %(token)s
