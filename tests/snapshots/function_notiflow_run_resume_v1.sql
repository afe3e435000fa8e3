CREATE OR REPLACE FUNCTION public.notiflow_run_resume_v1(run_id uuid, at_node text, resume_reason text, resume_actor text)
 RETURNS TABLE(resumed_id uuid, route_queue text, route_priority integer)
 LANGUAGE sql
 SET search_path TO 'pg_catalog', 'public'
AS $function$
    WITH resumed AS (
        UPDATE public.trigger_instance t
        SET status = 'enqueued', available_at = now(), nudged_at = now(), updated_at = now()
        WHERE t.id = run_id AND t.status = 'waiting' AND t.current_node_id = at_node
        RETURNING t.id, t.workflow_id, t.priority, t.current_node_id
    ), logged AS (
        INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor,
                                          node_id)
        SELECT resumed.id, 'waiting', 'enqueued', resume_reason, resume_actor,
               resumed.current_node_id
        FROM resumed
    )
    SELECT resumed.id, w.queue::text, resumed.priority::integer
    FROM resumed JOIN public.workflows_workflow w ON w.id = resumed.workflow_id
$function$
