CREATE OR REPLACE FUNCTION public.notiflow_queue_served_v1(served_queue text, live_within double precision)
 RETURNS TABLE(served boolean)
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
SELECT EXISTS (
    SELECT 1 FROM public.worker wk
    WHERE wk.stopped_at IS NULL
      AND wk.last_seen_at > statement_timestamp() - live_within * interval '1 second'
      AND served_queue = ANY (wk.queues))
$function$
