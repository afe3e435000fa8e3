CREATE OR REPLACE FUNCTION public.notiflow_run_retry_v1(run_id uuid, actor text, reason text)
 RETURNS TABLE(retried trigger_instance, route_queue text)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
BEGIN
    -- A failed run not deleted, at the node that failed: back to `enqueued`, due now, its
    -- nudge recorded (the caller publishes it after commit), its retry budget whole again.
    UPDATE public.trigger_instance t
    SET status = 'enqueued', attempts = 0, available_at = statement_timestamp(),
        nudged_at = statement_timestamp(), completed_at = NULL, last_error = '',
        updated_at = statement_timestamp()
    WHERE t.id = run_id AND t.status = 'failed' AND t.deleted_at IS NULL
      AND t.current_node_id IS NOT NULL
    RETURNING t.* INTO retried;
    IF NOT FOUND THEN
        RETURN;  -- not there, not failed, or deleted: no row
    END IF;
    INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
    VALUES (run_id, 'failed', 'enqueued', reason, actor, retried.current_node_id);
    -- The route of its nudge (rule 11): its workflow's queue as it is now.
    SELECT w.queue INTO route_queue FROM public.workflows_workflow w
    WHERE w.id = retried.workflow_id;
    RETURN NEXT;
END
$function$
