CREATE OR REPLACE FUNCTION public.notiflow_step_log_dropping_below_v1(cutoff timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public'
AS $function$
    SELECT max(upper_bound) FROM (
        SELECT r.upper_bound,
               bool_and(NOT EXISTS (
                   SELECT 1 FROM public.trigger_instance t
                   WHERE t.created_at >= r.lower_bound AND t.created_at < r.upper_bound
                     AND NOT public.notiflow_purge_finished_v1(t.status, t.created_at,
                                                               t.completed_at, cutoff)))
                   OVER (ORDER BY r.upper_bound) AS going
        FROM public.notiflow_step_log_ranges_v1() AS r
        WHERE r.upper_bound <= cutoff
    ) AS partitions
    WHERE going
$function$
