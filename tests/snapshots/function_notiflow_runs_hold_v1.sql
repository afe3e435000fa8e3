CREATE OR REPLACE FUNCTION public.notiflow_runs_hold_v1(run_ids uuid[], idle_only boolean)
 RETURNS TABLE(held_id uuid, gone boolean)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
BEGIN
    IF idle_only THEN
        -- Only runs that no step works on: one `enqueued` or `processing` is its step's to
        -- settle (the node reads its own wait), one locked meanwhile is left for the next call.
        RETURN QUERY
        SELECT t.id, false FROM public.trigger_instance t
        WHERE t.id = ANY (run_ids)
          AND t.status IN ('waiting', 'completed', 'failed', 'cancelled')
        ORDER BY t.id
        FOR UPDATE SKIP LOCKED;
    ELSE
        RETURN QUERY
        SELECT t.id, false FROM public.trigger_instance t
        WHERE t.id = ANY (run_ids)
        ORDER BY t.id
        FOR UPDATE;
    END IF;
    RETURN QUERY
    SELECT DISTINCT g.id, true FROM unnest(run_ids) AS g (id)
    WHERE NOT EXISTS (SELECT 1 FROM public.trigger_instance t WHERE t.id = g.id);
END
$function$
