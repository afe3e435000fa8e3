-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
WITH wait AS (
    SELECT w.id, w.name, w.match, w.created_at, wf.key AS workflow,
           notiflow_wait_recorded_v1(w.name, w.match, w.trigger_id, %(implied)s::jsonb,
                                     %(inbox_channel)s::text) AS recorded
    FROM event_wait w LEFT JOIN workflows_workflow wf ON wf.id = w.workflow_id
    WHERE w.trigger_id = %(trigger_id)s AND w.node_id = %(node_id)s AND w.resolved_at IS NULL
),
recent AS (
    SELECT e.event_id, e.name, e.data, e.created_at, e.workflows FROM received_event e
    WHERE e.name = (SELECT name FROM wait)
      AND e.created_at >= (SELECT created_at FROM wait) - %(lookback)s * interval '1 second'
    ORDER BY e.created_at DESC
    LIMIT %(read_max)s
),
found AS (
    SELECT e.event_id, e.name, e.data, e.created_at FROM recent e, wait
    WHERE (e.workflows IS NULL OR wait.workflow = ANY(e.workflows))
      AND NOT EXISTS (
          SELECT 1 FROM jsonb_each_text(wait.match) m
          WHERE (e.data ->> m.key) IS DISTINCT FROM m.value)
    ORDER BY e.created_at DESC
    LIMIT 1
)
UPDATE event_wait w
SET resolved_at = statement_timestamp(), received = true,
    resolved_by = CASE WHEN found.event_id IS NULL THEN 'recorded' ELSE 'lookback' END,
    event = CASE WHEN found.event_id IS NULL THEN wait.recorded
                 ELSE jsonb_build_object('id', found.event_id, 'name', found.name,
                                         'data', found.data, 'received_at', found.created_at)
            END
FROM wait LEFT JOIN found ON true
WHERE w.id = wait.id AND w.resolved_at IS NULL
  AND (found.event_id IS NOT NULL OR wait.recorded IS NOT NULL)
