-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT notiflow_trigger_event_dropping_below_v1(%(cutoff)s)
