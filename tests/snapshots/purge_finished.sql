-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT * FROM notiflow_purge_batch_v3(%(cutoff)s, %(batch)s, %(step_log_dropped_below)s, %(trigger_event_dropped_below)s)
