-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT * FROM notiflow_purge_batch_v2(%(cutoff)s, %(batch)s, %(logs_dropped_below)s)
