-- The end of a chunk under the lease `token` (fenced: a worker whose lease was lost, or a
-- fan-out cancelled meanwhile, changes nothing): the cursor past the chunk, its runs counted,
-- the new status (`done` or `failed` finish it), the error to show when one is given, the lease
-- cleared and the next chunk due at statement_timestamp() + `wait`, with `nudged` saying whether its task is
-- published on commit. A chunk that could not be done (`cursor` NULL) keeps its cursor.
UPDATE recipient_fanout
SET status = %(status)s::text, cursor = COALESCE(%(cursor)s, cursor),
    created = created + %(created)s,
    last_error = CASE WHEN %(error)s::text = '' THEN last_error ELSE %(error)s::text END,
    finished_at = CASE WHEN %(status)s::text = %(fo_running)s::text THEN NULL ELSE statement_timestamp() END,
    lease_until = NULL, leased_by = '',
    available_at = statement_timestamp() + %(wait)s * interval '1 second',
    nudged_at = CASE WHEN %(nudged)s THEN statement_timestamp() END,
    updated_at = statement_timestamp()
WHERE id = %(id)s AND leased_by = %(token)s AND status = %(fo_running)s::text
