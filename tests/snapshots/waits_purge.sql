-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
WITH old AS (
    SELECT w.id FROM event_wait w
    WHERE w.resolved_at < %(cutoff)s
      AND notiflow_run_ended_v1(w.trigger_id)
    LIMIT %(batch)s
)
DELETE FROM event_wait WHERE id IN (SELECT id FROM old)
