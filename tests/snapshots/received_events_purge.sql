-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
WITH old AS (
    SELECT id FROM received_event WHERE created_at < %(cutoff)s LIMIT %(batch)s
)
DELETE FROM received_event WHERE id IN (SELECT id FROM old)
