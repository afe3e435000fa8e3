-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- The end of a step under the lease `token` (fenced: a worker whose lease was lost changes
-- nothing): the firing state as it is now (the occurrence under way, its zones to go, the cursor
-- in the first of them, its runs so far and what the occurrence was charged), the runs made
-- added up, the error to show when one is given ('' keeps the last one), the lease cleared and
-- the next step due at statement_timestamp() + `wait`, with `nudged` saying whether its task is
-- published on commit.
UPDATE schedule
SET next_local = %(next_local)s::text, zones = %(zones)s::jsonb, cursor = %(cursor)s,
    zone_runs = %(zone_runs)s, charged = %(charged)s, runs_created = runs_created + %(created)s,
    last_error = CASE WHEN %(error)s::text = '' THEN last_error ELSE %(error)s::text END,
    lease_until = NULL, leased_by = '',
    available_at = statement_timestamp() + %(wait)s * interval '1 second',
    nudged_at = CASE WHEN %(nudged)s THEN statement_timestamp() END
WHERE id = %(id)s AND leased_by = %(token)s
