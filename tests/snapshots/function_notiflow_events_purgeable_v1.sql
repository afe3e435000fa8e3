CREATE OR REPLACE FUNCTION public.notiflow_events_purgeable_v1(cutoff timestamp with time zone)
 RETURNS TABLE(id bigint, event_id uuid)
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$ SELECT o.id, o.event_id FROM public.outbox_event o
      WHERE o.time < cutoff
        AND NOT EXISTS (SELECT 1 FROM public.webhook_delivery d
                        WHERE d.event_id = o.id AND d.status = 'pending') $function$
