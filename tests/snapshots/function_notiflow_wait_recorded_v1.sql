CREATE OR REPLACE FUNCTION public.notiflow_wait_recorded_v1(wait_name text, wait_match jsonb, run_id uuid, implied jsonb, inbox_channel text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
SELECT CASE WHEN left(wait_name, 8) = 'message.' AND wait_match = jsonb_build_object(
        'trigger_id', run_id::text, 'node_id', wait_match ->> 'node_id')
    THEN (
    SELECT jsonb_build_object(
        'id', r.source || ':' || substr(wait_name, 9), 'name', wait_name,
        'data', jsonb_build_object('trigger_id', run_id::text, 'node_id', r.node_id,
                                   'channel', r.channel, 'state', substr(wait_name, 9)),
        'received_at', r.at)
    FROM (
        SELECT 'delivery-' || d.id AS source, d.node_id, d.channel, d.event::text AS state,
               d.received_at AS at
        FROM public.delivery_event d
        WHERE d.trigger_id = run_id AND d.node_id = wait_match ->> 'node_id'
        UNION ALL
        SELECT 'inbox-' || m.id, m.node_id, inbox_channel, mark.state, mark.at
        FROM public.inbox_message m,
             LATERAL (VALUES ('read', m.read_at), ('seen', m.seen_at)) AS mark(state, at)
        WHERE m.trigger_id = run_id AND m.node_id = wait_match ->> 'node_id'
          AND mark.at IS NOT NULL
    ) r
    WHERE r.state = substr(wait_name, 9)
       OR COALESCE((implied -> r.state) ? substr(wait_name, 9), false)
    ORDER BY r.at, r.source
    LIMIT 1)
END
$function$
