-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT notiflow_step_log_dropping_below_v1(%(cutoff)s)
