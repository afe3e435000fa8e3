CREATE OR REPLACE FUNCTION public.notiflow_api_time_v1(at timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
    SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
           || CASE WHEN extract(microseconds FROM at)::bigint % 1000000 = 0 THEN ''
                   ELSE to_char(at AT TIME ZONE 'UTC', '.US') END
           || 'Z'
$function$
