-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
WITH shape AS (
    INSERT INTO wait_shape (name, keys, keys_text)
    VALUES (%(name)s, %(keys)s::jsonb, %(keys_text)s)
    ON CONFLICT (name, keys_text) DO NOTHING
),
registered AS (
    INSERT INTO event_wait (trigger_id, node_id, workflow_id, name, match, match_hash, deadline,
                            created_at, received, timed_out, resolved_by)
    VALUES (%(trigger_id)s, %(node_id)s, %(workflow_id)s, %(name)s, %(match)s::jsonb,
            %(match_hash)s, %(deadline)s, statement_timestamp(), false, false, '')
    ON CONFLICT (trigger_id, node_id) DO NOTHING
    RETURNING created_at, resolved_at, received, timed_out, event, deadline, trace_context
)
SELECT created_at, resolved_at, received, timed_out, event, deadline, trace_context FROM registered
UNION ALL
SELECT created_at, resolved_at, received, timed_out, event, deadline, trace_context FROM event_wait
WHERE trigger_id = %(trigger_id)s AND node_id = %(node_id)s
  AND NOT EXISTS (SELECT 1 FROM registered)
