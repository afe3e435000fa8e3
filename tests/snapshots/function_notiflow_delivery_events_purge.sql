CREATE OR REPLACE FUNCTION public.notiflow_delivery_events_purge()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public'
AS $function$
BEGIN
    DELETE FROM public.delivery_event WHERE trigger_id = OLD.id;
    DELETE FROM public.delivery_unmatched_report WHERE trigger_id = OLD.id;
    RETURN OLD;
END
$function$
