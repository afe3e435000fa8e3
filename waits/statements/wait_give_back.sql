-- The timeout could not close the wait now (its run is being worked on, its row locked): the
-- lease under `token` is cleared (fenced: nothing when it is no longer this worker's), the wait
-- still due and not nudged, so the next sweep nudges it again.
UPDATE event_wait SET lease_until = NULL, leased_by = ''
WHERE id = %(id)s AND leased_by = %(token)s AND resolved_at IS NULL
