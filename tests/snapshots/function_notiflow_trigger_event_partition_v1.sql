CREATE OR REPLACE FUNCTION public.notiflow_trigger_event_partition_v1(lower_bound timestamp with time zone, upper_bound timestamp with time zone)
 RETURNS text
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    name text := 'trigger_event_p' || to_char(lower_bound AT TIME ZONE 'UTC', 'YYYYMMDD');
BEGIN
    EXECUTE format('CREATE TABLE public.%I PARTITION OF public.trigger_event'
                   ' FOR VALUES FROM (%L) TO (%L)', name, lower_bound, upper_bound);
    -- What a partitioned table cannot declare for its partitions: a key without its partition
    -- column. The id comes from one sequence, so it is unique over the whole table.
    EXECUTE format('ALTER TABLE public.%I ADD PRIMARY KEY (id)', name);
    EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON public.%I'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION public.notiflow_append_only()',
                   name || '_no_truncate', name);
    RETURN name;
END
$function$
