CREATE OR REPLACE FUNCTION public.notiflow_funnel_delivery_v2()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    began timestamptz;
    workflow integer;
    run_tenant text;
    mine xid;
BEGIN
    -- The message's send, locked: a second report about it waits here for the first's commit,
    -- then sees it below (each statement of a function reads the newest commits).
    SELECT l.created_at, t.workflow_id, t.tenant INTO began, workflow, run_tenant
    FROM public.send_ledger l JOIN public.trigger_instance t ON t.id = l.trigger_id
    WHERE l.trigger_id = NEW.trigger_id AND l.node_id = NEW.node_id
    FOR NO KEY UPDATE OF l;
    IF workflow IS NULL THEN
        RETURN NULL;  -- its run was purged meanwhile: it is counted nowhere
    END IF;
    -- Counted already: by another transaction (committed, since its report is seen), or by an
    -- earlier row of this one (rows of one statement all see each other: the first counts).
    SELECT xmin INTO mine FROM public.delivery_event WHERE id = NEW.id;
    IF EXISTS (SELECT 1 FROM public.delivery_event d
               WHERE d.trigger_id = NEW.trigger_id AND d.node_id = NEW.node_id
                 AND d.event = NEW.event AND d.id <> NEW.id
                 AND (d.id < NEW.id OR d.xmin <> mine)) THEN
        RETURN NULL;
    END IF;
    INSERT INTO public.funnel_count AS f
        (workflow_id, hour, node_id, channel, outcome, tenant, slot, count)
    VALUES (workflow, date_trunc('hour', began, 'UTC'), NEW.node_id, NEW.channel, NEW.event,
            COALESCE(run_tenant, ''), pg_backend_pid() % 16, 1)
    ON CONFLICT ON CONSTRAINT funnel_count_once DO UPDATE SET count = f.count + 1;
    RETURN NULL;
END
$function$
