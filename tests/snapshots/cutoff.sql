-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT statement_timestamp() - %s
