CREATE OR REPLACE FUNCTION public.notiflow_lease_expired_v1(lease_until timestamp with time zone, at timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ SELECT lease_until < at $function$
