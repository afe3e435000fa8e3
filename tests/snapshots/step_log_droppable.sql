-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT partition FROM notiflow_step_log_ranges_v1() WHERE upper_bound <= %(cutoff)s ORDER BY upper_bound
