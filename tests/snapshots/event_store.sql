-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
WITH stored AS (
    INSERT INTO received_event (event_id, name, data, data_hash, created_by, api_key_id,
                                workflows, created_at)
    VALUES (%(event_id)s, %(name)s, %(data)s::jsonb, %(data_hash)s, %(created_by)s,
            %(api_key_id)s, %(workflows)s::text[], statement_timestamp())
    ON CONFLICT (event_id) DO NOTHING
    RETURNING id, data_hash, created_at, true AS created
)
SELECT id, data_hash, created_at, created FROM stored
UNION ALL
SELECT id, data_hash, created_at, false FROM received_event
WHERE event_id = %(event_id)s AND NOT EXISTS (SELECT 1 FROM stored)
