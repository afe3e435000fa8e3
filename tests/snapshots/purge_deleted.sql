-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT * FROM notiflow_purge_deleted_batch(%(cutoff)s, %(batch)s)
