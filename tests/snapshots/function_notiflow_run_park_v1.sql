CREATE OR REPLACE FUNCTION public.notiflow_run_park_v1(run_id uuid, at_node text, wait_over boolean, reason text)
 RETURNS text
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    parked text;
BEGIN
    UPDATE public.trigger_instance t
    SET status = CASE WHEN wait_over THEN 'enqueued' ELSE 'waiting' END,
        available_at = CASE WHEN wait_over THEN statement_timestamp() ELSE t.available_at END,
        nudged_at = CASE WHEN wait_over THEN NULL ELSE t.nudged_at END,
        updated_at = statement_timestamp()
    WHERE t.id = run_id AND t.status = 'enqueued' AND t.current_node_id = at_node
    RETURNING t.status INTO parked;
    IF parked = 'waiting' THEN
        INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor,
                                          node_id)
        VALUES (run_id, 'enqueued', 'waiting', reason, 'engine', at_node);
    END IF;
    RETURN parked;
END
$function$
