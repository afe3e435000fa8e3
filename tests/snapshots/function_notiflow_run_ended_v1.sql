CREATE OR REPLACE FUNCTION public.notiflow_run_ended_v1(run_id uuid)
 RETURNS boolean
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$ SELECT NOT EXISTS (
          SELECT 1 FROM public.trigger_instance t
          WHERE t.id = run_id AND t.status NOT IN ('completed', 'failed', 'cancelled')) $function$
