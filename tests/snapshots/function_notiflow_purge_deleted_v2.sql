CREATE OR REPLACE FUNCTION public.notiflow_purge_deleted_v2(deleted_at timestamp with time zone, lease_until timestamp with time zone, cutoff timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$ SELECT deleted_at < cutoff
             AND (lease_until IS NULL
                  OR public.notiflow_lease_expired_v1(lease_until, statement_timestamp())) $function$
