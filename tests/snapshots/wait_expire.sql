-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
WITH wait AS (
    SELECT w.id, CASE WHEN left(w.name, 8) = 'message.' AND w.match = jsonb_build_object(
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
END AS recorded FROM event_wait w
    WHERE w.trigger_id = %(trigger_id)s AND w.node_id = %(node_id)s AND w.resolved_at IS NULL
      AND w.deadline <= statement_timestamp()
)
UPDATE event_wait w
SET resolved_at = statement_timestamp(), received = wait.recorded IS NOT NULL,
    timed_out = wait.recorded IS NULL, event = wait.recorded,
    resolved_by = CASE WHEN wait.recorded IS NULL THEN 'timeout' ELSE 'recorded' END
FROM wait
WHERE w.id = wait.id AND w.resolved_at IS NULL
