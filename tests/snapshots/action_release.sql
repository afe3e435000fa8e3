-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- The end of a chunk under the lease `token` (fenced: a worker whose lease was lost changes
-- nothing): the cursor moved by the runs the chunk reached and its counts added, the new status
-- (`done` or `failed` finish it), the error to show when one is given, the chunks failed in a
-- row (`attempts`: NULL resets it, else it is added), the lease cleared and the next chunk due
-- at statement_timestamp() + `wait`, with `nudged` saying whether its task is published on
-- commit.
UPDATE trigger_action
SET status = %(status)s::text, cursor = cursor + %(reached)s,
    done = done + %(done)s, skipped = skipped + %(skipped)s, errors = errors + %(errors)s,
    error_sample = (error_sample || %(error_sample)s::jsonb),
    last_error = CASE WHEN %(error)s::text = '' THEN last_error ELSE %(error)s::text END,
    attempts = CASE WHEN %(attempts)s::integer IS NULL THEN 0 ELSE attempts + %(attempts)s END,
    finished_at = CASE WHEN %(status)s::text = %(ac_running)s::text THEN NULL ELSE statement_timestamp() END,
    lease_until = NULL, leased_by = '',
    available_at = statement_timestamp() + %(wait)s * interval '1 second',
    nudged_at = CASE WHEN %(nudged)s THEN statement_timestamp() END,
    updated_at = statement_timestamp()
WHERE id = %(id)s AND leased_by = %(token)s AND status = %(ac_running)s::text
