CREATE OR REPLACE FUNCTION public.notiflow_purge_finished_v1(status text, created_at timestamp with time zone, completed_at timestamp with time zone, cutoff timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ SELECT status IN ('completed', 'failed', 'cancelled')
             AND created_at < cutoff AND completed_at < cutoff $function$
