CREATE OR REPLACE FUNCTION public.notiflow_push_progress_v1(run_id uuid, step_node text, outcome jsonb)
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
    UPDATE public.send_ledger
    SET result = jsonb_set(coalesce(result, '{}'::jsonb), '{progress}',
                           coalesce(result -> 'progress', '{}'::jsonb) || outcome)
    WHERE trigger_id = run_id AND node_id = step_node AND status = 'sending'
$function$
