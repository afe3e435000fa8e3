CREATE OR REPLACE FUNCTION public.notiflow_runs_cancel_v1(run_ids uuid[], actor text, reason text, announced jsonb)
 RETURNS TABLE(cancelled trigger_instance, deliveries bigint[])
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    changed public.trigger_instance[];
    written bigint[];
BEGIN
    -- 1. The runs, locked in id order whatever order they came in: two cancels never deadlock.
    PERFORM FROM public.trigger_instance t WHERE t.id = ANY (run_ids) ORDER BY t.id FOR UPDATE;

    -- 2. Each one not over, cancelled now with its status event; one that ended meanwhile is
    -- left as it is.
    WITH moved AS (
        UPDATE public.trigger_instance t
        SET status = 'cancelled', lease_until = NULL, completed_at = statement_timestamp(),
            updated_at = statement_timestamp()
        FROM public.trigger_instance prior
        WHERE t.id = ANY (run_ids) AND prior.id = t.id
          AND t.status NOT IN ('completed', 'failed', 'cancelled')
        RETURNING t AS run, prior.status AS from_status
    ), logged AS (
        INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor,
                                          node_id)
        SELECT (m.run).id, m.from_status, 'cancelled', reason, actor, (m.run).current_node_id
        FROM moved m
        ORDER BY (m.run).id
    )
    SELECT array_agg(m.run ORDER BY (m.run).id) INTO changed FROM moved m;

    -- 3. Their events (docs/design/rules.md, rule 10), built by the caller from the runs as it
    -- locked them, each showing its run as the UPDATE left it; those of a run not cancelled
    -- are dropped.
    IF announced IS NOT NULL AND changed IS NOT NULL THEN
        SELECT jsonb_agg(jsonb_set(e, '{data,trigger}', (e #> '{data,trigger}') || jsonb_build_object(
                  'status', c.status,
                  'cursor', CASE WHEN c.current_node_id IS NOT NULL
                                 THEN jsonb_build_object('current_node_id', c.current_node_id) END,
                  'vars', c.vars,
                  'attempts', c.attempts,
                  'available_at', public.notiflow_api_time_v1(c.available_at),
                  'lease_until', public.notiflow_api_time_v1(c.lease_until),
                  'leased_by', c.leased_by,
                  'last_error', c.last_error,
                  'completed_at', public.notiflow_api_time_v1(c.completed_at),
                  'updated_at', public.notiflow_api_time_v1(c.updated_at)))
                         ORDER BY n)
        INTO announced
        FROM jsonb_array_elements(announced) WITH ORDINALITY AS a (e, n)
        JOIN unnest(changed) AS c ON c.id = (e ->> 'trigger_id')::uuid;
        IF announced IS NOT NULL THEN
            written := public.notiflow_outbox_write_v2(announced, '');
        END IF;
    END IF;

    RETURN QUERY SELECT c::public.trigger_instance, written FROM unnest(changed) AS c ORDER BY c.id;
END
$function$
