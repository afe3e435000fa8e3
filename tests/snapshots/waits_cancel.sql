-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
UPDATE event_wait SET resolved_at = statement_timestamp(), resolved_by = 'cancelled'
WHERE trigger_id = ANY(%(trigger_ids)s::uuid[]) AND resolved_at IS NULL
