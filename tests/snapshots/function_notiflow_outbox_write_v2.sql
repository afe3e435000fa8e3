CREATE OR REPLACE FUNCTION public.notiflow_outbox_write_v2(announced jsonb, open_gate text)
 RETURNS bigint[]
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    to_nudge bigint[];
BEGIN
    -- Nobody to tell: the events are not even read out of their JSON (every release that
    -- announces something pays for this function).
    IF NOT EXISTS (SELECT 1 FROM public.webhook_endpoint) THEN
        RETURN NULL;
    END IF;
    -- The events labelled `open_gate` that some endpoint subscribes to, in their order (so `id`
    -- orders one trigger's events); one pending delivery per (event, subscribing endpoint),
    -- disabled endpoints included (they keep their events).
    WITH written AS (
        INSERT INTO public.outbox_event (event_id, type, trigger_id, workflow_key, data, time)
        SELECT e.event_id, e.type, e.trigger_id, e.workflow_key, e.data, statement_timestamp()
        FROM ROWS FROM (jsonb_to_recordset(announced)
                        AS (event_id uuid, type text, trigger_id uuid, workflow_key text,
                            data jsonb, gate text))
             WITH ORDINALITY AS e (event_id, type, trigger_id, workflow_key, data, gate, n)
        WHERE e.gate = open_gate
          AND EXISTS (SELECT 1 FROM public.webhook_endpoint w
                      WHERE public.notiflow_subscribes_v1(w.events, w.workflows, e.type,
                                                          e.workflow_key))
        ORDER BY e.n
        RETURNING id, type, workflow_key
    ), fanned_out AS (
        INSERT INTO public.webhook_delivery (event_id, endpoint_id, status, attempts,
                                             available_at, nudged_at, last_error, leased_by,
                                             created_at, updated_at)
        SELECT written.id, w.id, 'pending', 0, statement_timestamp(),
               CASE WHEN w.disabled_at IS NULL THEN statement_timestamp() END, '', '', statement_timestamp(), statement_timestamp()
        FROM written JOIN public.webhook_endpoint w
          ON public.notiflow_subscribes_v1(w.events, w.workflows, written.type,
                                           written.workflow_key)
        RETURNING id, endpoint_id
    )
    -- The deliveries to nudge after commit: those to enabled endpoints.
    SELECT array_agg(d.id) INTO to_nudge
    FROM fanned_out d JOIN public.webhook_endpoint w ON w.id = d.endpoint_id
    WHERE w.disabled_at IS NULL;
    RETURN to_nudge;
END
$function$
