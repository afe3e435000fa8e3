CREATE OR REPLACE FUNCTION public.notiflow_step_log_partitions_v1(upto timestamp with time zone, span_days integer)
 RETURNS SETOF text
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    bound timestamptz;
    name text;
BEGIN
    IF span_days < 1 THEN
        RAISE EXCEPTION 'a partition spans at least one day, not %', span_days;
    END IF;
    SELECT max(r.upper_bound) INTO bound FROM public.notiflow_step_log_ranges_v1() AS r;
    IF bound IS NULL THEN
        -- The first: every run created before today (UTC).
        bound := date_trunc('day', statement_timestamp(), 'UTC');
        name := 'step_log_before';
        EXECUTE format('CREATE TABLE public.%I PARTITION OF public.step_log'
                       ' FOR VALUES FROM (MINVALUE) TO (%L)', name, bound);
        PERFORM public.notiflow_step_log_partition_setup_v1(name);
        RETURN NEXT name;
    END IF;
    WHILE bound < upto LOOP
        name := 'step_log_p' || to_char(bound AT TIME ZONE 'UTC', 'YYYYMMDD');
        EXECUTE format('CREATE TABLE public.%I PARTITION OF public.step_log'
                       ' FOR VALUES FROM (%L) TO (%L)',
                       name, bound, bound + make_interval(days => span_days));
        PERFORM public.notiflow_step_log_partition_setup_v1(name);
        bound := bound + make_interval(days => span_days);
        RETURN NEXT name;
    END LOOP;
END
$function$
