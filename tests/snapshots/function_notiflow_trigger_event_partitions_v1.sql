CREATE OR REPLACE FUNCTION public.notiflow_trigger_event_partitions_v1(upto timestamp with time zone, span_days integer)
 RETURNS SETOF text
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    bound timestamptz;
BEGIN
    IF span_days < 1 THEN
        RAISE EXCEPTION 'a partition spans at least one day, not %', span_days;
    END IF;
    SELECT max(r.upper_bound) INTO bound FROM public.notiflow_trigger_event_ranges_v1() AS r;
    IF bound IS NULL THEN
        RAISE EXCEPTION 'trigger_event has no range partition to follow';
    END IF;
    WHILE bound < upto LOOP
        RETURN NEXT public.notiflow_trigger_event_partition_v1(
            bound, bound + make_interval(days => span_days));
        bound := bound + make_interval(days => span_days);
    END LOOP;
END
$function$
