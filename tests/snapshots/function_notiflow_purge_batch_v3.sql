CREATE OR REPLACE FUNCTION public.notiflow_purge_batch_v3(cutoff timestamp with time zone, batch_size integer, logs_dropped_below timestamp with time zone, events_dropped_below timestamp with time zone)
 RETURNS TABLE(step_log bigint, send_ledger bigint, trigger_event bigint, trigger_instance bigint)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    doomed uuid[];
    -- Where the range partitions begin: older events are the DEFAULT partition's.
    events_from timestamptz :=
        (SELECT min(r.lower_bound) FROM public.notiflow_trigger_event_ranges_v1() AS r);
BEGIN
    -- FOR UPDATE serialises with a delete, cancel, retry or step outcome of the same trigger;
    -- SKIP LOCKED lets a purge run beside the live system.
    SELECT array_agg(t.id) INTO doomed FROM (
        SELECT id FROM public.trigger_instance
        WHERE public.notiflow_purge_finished_v1(status, created_at, completed_at, cutoff)
        LIMIT batch_size
        FOR UPDATE SKIP LOCKED
    ) AS t;
    step_log := 0; send_ledger := 0; trigger_event := 0; trigger_instance := 0;
    IF doomed IS NOT NULL THEN
        DELETE FROM public.step_log s
        WHERE s.trigger_id = ANY (doomed)
          AND (s.run_created_at IS NULL
               OR s.run_created_at >= coalesce(logs_dropped_below, '-infinity'));
        GET DIAGNOSTICS step_log = ROW_COUNT;
        DELETE FROM public.send_ledger l WHERE l.trigger_id = ANY (doomed);
        GET DIAGNOSTICS send_ledger = ROW_COUNT;
        DELETE FROM public.trigger_event e
        WHERE e.trigger_id = ANY (doomed)
          AND (events_dropped_below IS NULL OR e.created_at < events_from
               OR e.created_at >= events_dropped_below);
        GET DIAGNOSTICS trigger_event = ROW_COUNT;
        DELETE FROM public.trigger_instance t WHERE t.id = ANY (doomed);
        GET DIAGNOSTICS trigger_instance = ROW_COUNT;
    END IF;
    RETURN NEXT;
END
$function$
