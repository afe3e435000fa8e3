CREATE OR REPLACE FUNCTION public.notiflow_delivery_give_up_v1(p_id bigint, p_status_code integer, p_error text, p_disable_after integer)
 RETURNS void
 LANGUAGE sql
AS $function$
    WITH failed AS (
        UPDATE webhook_delivery
        SET status = 'failed', lease_until = NULL, leased_by = '',
            last_status_code = p_status_code, last_error = p_error, updated_at = statement_timestamp()
        WHERE id = p_id
        RETURNING endpoint_id
    )
    UPDATE webhook_endpoint w
    SET failed_events = w.failed_events + 1,
        disabled_at = CASE WHEN w.disabled_at IS NULL AND w.failed_events >= p_disable_after - 1
                           THEN statement_timestamp() ELSE w.disabled_at END,
        disabled_reason = CASE WHEN w.disabled_at IS NULL AND w.failed_events >= p_disable_after - 1
                               THEN p_disable_after || ' events in a row failed to be delivered'
                               ELSE w.disabled_reason END
    FROM failed WHERE w.id = failed.endpoint_id
$function$
