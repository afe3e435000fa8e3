-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
WITH old AS (
    SELECT w.id FROM event_wait w
    WHERE w.resolved_at < %(cutoff)s
      AND NOT EXISTS (
          SELECT 1 FROM trigger_instance t
          WHERE t.id = w.trigger_id AND t.status NOT IN ('completed', 'failed', 'cancelled'))
    LIMIT %(batch)s
)
DELETE FROM event_wait WHERE id IN (SELECT id FROM old)
