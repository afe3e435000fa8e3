CREATE OR REPLACE FUNCTION public.notiflow_funnel_sweep_v1()
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    low xid8;
    counted bigint;
BEGIN
    -- One sweep at a time: one that finds the mark locked leaves the work to its holder.
    SELECT w.swept_below INTO low FROM public.funnel_sweep w WHERE w.id = 1
    FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    -- A statement of its own, so a snapshot taken after the lock: the last sweep's commit is
    -- in it. Its xmin is the high mark; the step logs are read in the same snapshot.
    WITH mark AS (
        SELECT GREATEST(low, pg_snapshot_xmin(pg_current_snapshot())) AS high
    ), steps AS (
        SELECT s.* FROM mark, public.notiflow_funnel_steps_v1(low, mark.high, NULL) s
    ), rolled AS (
        INSERT INTO public.funnel_count AS f
            (workflow_id, hour, node_id, channel, outcome, tenant, slot, count)
        SELECT s.workflow_id, s.hour, s.node_id, s.channel, s.outcome, s.tenant, 0, s.count
        FROM steps s
        ON CONFLICT ON CONSTRAINT funnel_count_once DO UPDATE SET count = f.count + EXCLUDED.count
    ), moved AS (
        UPDATE public.funnel_sweep w SET swept_below = mark.high, swept_at = statement_timestamp()
        FROM mark WHERE w.id = 1
    )
    SELECT COALESCE(sum(s.count), 0) INTO counted FROM steps s;
    RETURN counted;
END
$function$
