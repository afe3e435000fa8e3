CREATE OR REPLACE FUNCTION public.notiflow_step_log_drop_v1(name text, cutoff timestamp with time zone)
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    range record;
    dropped bigint;
BEGIN
    SELECT * INTO range FROM public.notiflow_step_log_ranges_v1() AS r WHERE r.partition = name;
    IF NOT FOUND OR range.upper_bound > cutoff THEN
        RETURN NULL;
    END IF;
    -- A run is created at the statement's time, never in a range already past: once none is
    -- left in the range, none can come back, and no step log can be written there again.
    IF EXISTS (SELECT 1 FROM public.trigger_instance t
               WHERE t.created_at >= range.lower_bound AND t.created_at < range.upper_bound) THEN
        RETURN NULL;
    END IF;
    EXECUTE format('SELECT count(*) FROM public.%I', name) INTO dropped;
    EXECUTE format('DROP TABLE public.%I', name);
    RETURN dropped;
END
$function$
