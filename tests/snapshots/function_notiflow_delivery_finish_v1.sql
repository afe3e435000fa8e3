CREATE OR REPLACE FUNCTION public.notiflow_delivery_finish_v1(p_id bigint, p_token text, p_attempt_id bigint, p_answer text, p_status_code integer, p_error text, p_duration_ms integer, p_retry_seconds double precision, p_retry_nudged boolean, p_max_attempts integer, p_disable_after integer)
 RETURNS TABLE(status text, countdown double precision)
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
DECLARE
    d webhook_delivery%ROWTYPE;
BEGIN
    -- The delivery's row before the attempt's (the order a claim takes them in), fenced by the
    -- lease token: NOT FOUND when the lease was lost meanwhile.
    SELECT * INTO d FROM webhook_delivery
    WHERE id = p_id AND leased_by = p_token AND status = 'pending'
    FOR UPDATE;
    -- The attempt happened, whatever became of the lease; one found abandoned keeps the
    -- account the later claim gave of it.
    UPDATE webhook_attempt
    SET state = 'finished', status_code = p_status_code, error = p_error,
        duration_ms = p_duration_ms
    WHERE id = p_attempt_id AND state = 'started';
    IF d.id IS NULL THEN
        RETURN;
    END IF;
    IF p_answer = 'delivered' THEN
        UPDATE webhook_delivery
        SET status = 'delivered', delivered_at = statement_timestamp(), lease_until = NULL, leased_by = '',
            last_status_code = p_status_code, last_error = p_error, updated_at = statement_timestamp()
        WHERE id = p_id;
        UPDATE webhook_endpoint SET failed_events = 0
        WHERE id = d.endpoint_id AND failed_events > 0;
        status := 'delivered';
    ELSIF p_answer = 'gone' THEN
        -- The receiver says the endpoint is gone: stop sending there, keep the event.
        UPDATE webhook_delivery
        SET available_at = statement_timestamp(), nudged_at = NULL, lease_until = NULL, leased_by = '',
            last_status_code = p_status_code, last_error = p_error, updated_at = statement_timestamp()
        WHERE id = p_id;
        UPDATE webhook_endpoint
        SET disabled_at = statement_timestamp(), updated_at = statement_timestamp(),
            disabled_reason = format('the receiver answered 410 Gone (%s UTC)',
                                     to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'))
        WHERE id = d.endpoint_id AND disabled_at IS NULL;
        status := 'pending';
    ELSIF d.attempts >= p_max_attempts THEN
        PERFORM notiflow_delivery_give_up_v1(p_id, p_status_code, p_error, p_disable_after);
        status := 'failed';
    ELSE
        UPDATE webhook_delivery
        SET available_at = statement_timestamp() + p_retry_seconds * interval '1 second',
            nudged_at = CASE WHEN p_retry_nudged THEN statement_timestamp() END,
            lease_until = NULL, leased_by = '',
            last_status_code = p_status_code, last_error = p_error, updated_at = statement_timestamp()
        WHERE id = p_id;
        status := 'pending';
        countdown := CASE WHEN p_retry_nudged THEN p_retry_seconds END;
    END IF;
    RETURN NEXT;
END
$function$
