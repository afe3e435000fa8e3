CREATE OR REPLACE FUNCTION public.notiflow_purge_events_batch(cutoff timestamp with time zone, batch_size integer)
 RETURNS TABLE(webhook_attempt bigint, webhook_delivery bigint, outbox_event bigint)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    doomed bigint[];
BEGIN
    SELECT array_agg(e.id) INTO doomed FROM (
        SELECT id FROM outbox_event o
        WHERE o.id IN (SELECT p.id FROM public.notiflow_events_purgeable_v1(cutoff) p)
        ORDER BY o.time
        LIMIT batch_size
        FOR UPDATE SKIP LOCKED
    ) AS e;
    webhook_attempt := 0; webhook_delivery := 0; outbox_event := 0;
    IF doomed IS NOT NULL THEN
        DELETE FROM public.webhook_attempt a
        USING public.outbox_event o
        WHERE o.id = ANY (doomed) AND a.event_id = o.event_id;
        GET DIAGNOSTICS webhook_attempt = ROW_COUNT;
        DELETE FROM public.webhook_delivery d WHERE d.event_id = ANY (doomed);
        GET DIAGNOSTICS webhook_delivery = ROW_COUNT;
        DELETE FROM public.outbox_event o WHERE o.id = ANY (doomed);
        GET DIAGNOSTICS outbox_event = ROW_COUNT;
    END IF;
    RETURN NEXT;
END
$function$
