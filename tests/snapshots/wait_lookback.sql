-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
WITH wait AS (
    SELECT w.id, w.name, w.match, w.created_at, wf.key AS workflow, CASE WHEN left(w.name, 8) = 'message.' AND w.match = jsonb_build_object(
        'trigger_id', w.trigger_id::text, 'node_id', w.match ->> 'node_id')
    THEN (
    SELECT jsonb_build_object(
        'id', r.source || ':' || substr(w.name, 9), 'name', w.name,
        'data', jsonb_build_object('trigger_id', w.trigger_id::text, 'node_id', r.node_id,
                                   'channel', r.channel, 'state', substr(w.name, 9)),
        'received_at', r.at)
    FROM (
        SELECT 'delivery-' || d.id AS source, d.node_id, d.channel, d.event::text AS state,
               d.received_at AS at
        FROM delivery_event d
        WHERE d.trigger_id = w.trigger_id AND d.node_id = w.match ->> 'node_id'
        UNION ALL
        SELECT 'inbox-' || m.id, m.node_id, 'inapp', mark.state, mark.at
        FROM inbox_message m,
             LATERAL (VALUES ('read', m.read_at), ('seen', m.seen_at)) AS mark(state, at)
        WHERE m.trigger_id = w.trigger_id AND m.node_id = w.match ->> 'node_id'
          AND mark.at IS NOT NULL
    ) r
    WHERE substr(w.name, 9) = ANY(CASE r.state WHEN 'clicked' THEN ARRAY['clicked', 'opened'] WHEN 'seen' THEN ARRAY['seen', 'opened'] WHEN 'read' THEN ARRAY['read', 'seen', 'opened'] ELSE ARRAY[r.state] END)
    ORDER BY r.at, r.source
    LIMIT 1)
END AS recorded
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
