CREATE OR REPLACE FUNCTION public.notiflow_trigger_event_dropping_below_v1(cutoff timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public'
AS $function$
    SELECT max(r.upper_bound) FROM public.notiflow_trigger_event_ranges_v1() AS r
    WHERE r.upper_bound <= cutoff
      AND r.upper_bound + interval '3600 seconds' <= coalesce(
          (SELECT min(t.created_at) FROM public.trigger_instance t
           WHERE NOT public.notiflow_purge_finished_v1(t.status, t.created_at, t.completed_at,
                                                       cutoff)),
          'infinity')
$function$
