CREATE OR REPLACE FUNCTION public.notiflow_funnel_steps_v1(low xid8, high xid8, workflow bigint)
 RETURNS TABLE(workflow_id bigint, hour timestamp with time zone, node_id text, channel text, outcome text, tenant text, count bigint)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
BEGIN
    -- EXECUTE: planned for these bounds each time (a generic plan cannot tell a tail of a few
    -- rows from the whole table).
    RETURN QUERY EXECUTE $q$
        SELECT s.workflow_id, date_trunc('hour', COALESCE(l.created_at, s.started_at), 'UTC'),
               s.node_id::text, s.node_type::text, s.output -> 'decision' ->> 'decision',
               COALESCE(s.input -> 'tenant' ->> 'id', ''), count(*)
        FROM public.step_log s
        LEFT JOIN public.send_ledger l ON l.trigger_id = s.trigger_id AND l.node_id = s.node_id
        WHERE s.txid >= $1 AND ($2 IS NULL OR s.txid < $2)
          AND ($3 IS NULL OR s.workflow_id = $3)
          AND (s.output -> 'decision' ->> 'decision') IN ('sent', 'skipped', 'failed')
        GROUP BY 1, 2, 3, 4, 5, 6
    $q$ USING low, high, workflow;
END
$function$
