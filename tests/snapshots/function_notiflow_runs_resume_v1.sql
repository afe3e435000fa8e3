CREATE OR REPLACE FUNCTION public.notiflow_runs_resume_v1(resumed jsonb)
 RETURNS TABLE(resumed_id uuid, route_queue text, route_priority smallint)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
BEGIN
    RETURN QUERY
    WITH wanted AS (
        SELECT DISTINCT ON (r.run_id) r.run_id, r.node_id, r.reason, r.actor
        FROM jsonb_to_recordset(resumed) AS r (run_id uuid, node_id text, reason text, actor text)
        ORDER BY r.run_id
    ),
    moved AS (
        UPDATE public.trigger_instance t
        SET status = 'enqueued', available_at = statement_timestamp(),
            nudged_at = statement_timestamp(), updated_at = statement_timestamp()
        FROM wanted
        WHERE t.id = wanted.run_id AND t.status = 'waiting'
          AND t.current_node_id = wanted.node_id
        RETURNING t.id, t.workflow_id, t.priority, t.current_node_id, wanted.reason, wanted.actor
    ),
    logged AS (
        INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor,
                                          node_id)
        SELECT m.id, 'waiting', 'enqueued', m.reason, m.actor, m.current_node_id FROM moved m
    )
    SELECT m.id, w.queue::text, m.priority::smallint
    FROM moved m JOIN public.workflows_workflow w ON w.id = m.workflow_id;
END
$function$
