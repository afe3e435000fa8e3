-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
WITH due AS (
    SELECT w.id, w.trigger_id, CASE WHEN left(w.name, 8) = 'message.' AND w.match = jsonb_build_object(
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
    FROM event_wait w
    WHERE w.id = %(id)s AND w.leased_by = %(token)s AND w.resolved_at IS NULL
),
held AS (
    SELECT h.held_id AS id FROM notiflow_runs_hold_v1(ARRAY(SELECT trigger_id FROM due), true) h
),
resolved AS (
    UPDATE event_wait w
    SET resolved_at = statement_timestamp(), received = due.recorded IS NOT NULL,
    timed_out = due.recorded IS NULL, event = due.recorded,
    resolved_by = CASE WHEN due.recorded IS NULL THEN 'timeout' ELSE 'recorded' END, lease_until = NULL, leased_by = ''
    FROM due
    WHERE w.id = due.id AND due.trigger_id IN (SELECT id FROM held)
    RETURNING w.trigger_id, w.node_id,
              CASE WHEN w.received THEN 'recorded ' || w.name || ' ' || (w.event ->> 'id')
                   ELSE 'wait timed out' END AS reason,
              'sweeper' AS actor
),
resumed AS (
    SELECT r.resumed_id, r.route_queue, r.route_priority
    FROM notiflow_runs_resume_v1((
        SELECT COALESCE(jsonb_agg(jsonb_build_object(
                   'run_id', trigger_id, 'node_id', node_id, 'reason', reason, 'actor', actor)),
               '[]'::jsonb)
        FROM resolved)) AS r
)
SELECT true AS closed, r.resumed_id, r.route_queue, r.route_priority
FROM resolved
LEFT JOIN resumed r ON r.resumed_id = resolved.trigger_id
