-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
SELECT partition FROM notiflow_trigger_event_ranges_v1() WHERE upper_bound <= %(cutoff)s ORDER BY upper_bound
