CREATE OR REPLACE FUNCTION public.notiflow_trigger_event_drop_v1(name text, cutoff timestamp with time zone)
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    range record;
    dropped bigint;
BEGIN
    SELECT * INTO range FROM public.notiflow_trigger_event_ranges_v1() AS r
    WHERE r.partition = name;
    IF NOT FOUND OR range.upper_bound > cutoff THEN
        RETURN NULL;
    END IF;
    -- Never the last: the next partitions are made from where it ends.
    IF range.upper_bound = (SELECT max(r.upper_bound)
                            FROM public.notiflow_trigger_event_ranges_v1() AS r) THEN
        RETURN NULL;
    END IF;
    -- Its rows are of runs created before its end and interval '3600 seconds': once none is left, none comes
    -- back (a run is created at the statement's time), and no event can be written there.
    IF EXISTS (SELECT 1 FROM public.trigger_instance t
               WHERE t.created_at < range.upper_bound + interval '3600 seconds') THEN
        RETURN NULL;
    END IF;
    EXECUTE format('SELECT count(*) FROM public.%I', name) INTO dropped;
    EXECUTE format('DROP TABLE public.%I', name);
    RETURN dropped;
END
$function$
