CREATE OR REPLACE FUNCTION public.notiflow_trigger_event_ranges_v1()
 RETURNS TABLE(partition text, lower_bound timestamp with time zone, upper_bound timestamp with time zone)
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public'
AS $function$
    SELECT c.relname::text,
           CASE WHEN b[1] = 'MINVALUE' THEN '-infinity'::timestamptz ELSE b[1]::timestamptz END,
           b[2]::timestamptz
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                    'FROM \(''?([^'')]+)''?\) TO \(''?([^'')]+)''?\)') AS b
    WHERE i.inhparent = 'public.trigger_event'::regclass AND b IS NOT NULL
$function$
