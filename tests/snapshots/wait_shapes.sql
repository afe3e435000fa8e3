-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT keys_text FROM wait_shape WHERE name = %(name)s
