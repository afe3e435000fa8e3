CREATE OR REPLACE FUNCTION public.notiflow_step_log_partition_setup_v1(name text)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public'
AS $function$
BEGIN
    -- What a partitioned table cannot declare for its partitions: a key without the partition
    -- column. Within a partition every row is of runs created in its range, one run's rows all
    -- in one partition, so (trigger_id, node_id, attempt) is unique over the whole table.
    EXECUTE format('ALTER TABLE public.%I ADD PRIMARY KEY (id)', name);
    EXECUTE format('CREATE UNIQUE INDEX %I ON public.%I (trigger_id, node_id, attempt)',
                   name || '_once_per_attempt', name);
    EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON public.%I'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION public.notiflow_append_only()',
                   name || '_no_truncate', name);
END
$function$
