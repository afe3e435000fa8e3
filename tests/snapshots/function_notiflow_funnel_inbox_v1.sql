CREATE OR REPLACE FUNCTION public.notiflow_funnel_inbox_v1()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    step record;
BEGIN
    -- The step that stored the message: its workflow, the hour it was counted in (as
    -- notiflow_funnel_step_v2 counted it) and its run's tenant.
    SELECT s.workflow_id, s.node_type,
           date_trunc('hour', COALESCE(l.created_at, s.started_at), 'UTC') AS hour,
           COALESCE(s.input -> 'tenant' ->> 'id', '') AS tenant
    INTO step
    FROM public.step_log s
    LEFT JOIN public.send_ledger l ON l.trigger_id = s.trigger_id AND l.node_id = s.node_id
    WHERE s.trigger_id = NEW.trigger_id AND s.node_id = NEW.node_id
      AND s.output -> 'decision' ->> 'decision' = 'sent'
    ORDER BY s.attempt DESC LIMIT 1;
    IF NOT FOUND THEN
        RETURN NULL;  -- its run was purged: it is counted nowhere
    END IF;
    INSERT INTO public.funnel_count AS f
        (workflow_id, hour, node_id, channel, outcome, tenant, slot, count)
    SELECT step.workflow_id, step.hour, NEW.node_id, step.node_type, outcome, step.tenant,
           pg_backend_pid() % 16, 1
    FROM (VALUES ('delivered', OLD.seen_at IS NULL AND NEW.seen_at IS NOT NULL),
                 ('opened', OLD.first_read_at IS NULL AND NEW.first_read_at IS NOT NULL))
         AS marked (outcome, happened)
    WHERE happened
    ON CONFLICT ON CONSTRAINT funnel_count_once DO UPDATE SET count = f.count + 1;
    RETURN NULL;
END
$function$
