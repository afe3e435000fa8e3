CREATE OR REPLACE FUNCTION public.notiflow_delivery_claim_v2(p_id bigint, p_token text, p_lease_seconds double precision, p_max_attempts integer, p_concurrency integer, p_defer_seconds double precision, p_defer_nudged boolean, p_disable_after integer)
 RETURNS TABLE(outcome text, abandoned boolean, attempt_id bigint, attempt integer, url text, secret text, event_pk bigint, event_id uuid, event_type text, trigger_id uuid, workflow_key text, data jsonb, event_time timestamp with time zone)
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
DECLARE
    no_answer constant text :=
        'no answer recorded: the worker stopped during the attempt (its lease expired)';
    d webhook_delivery%ROWTYPE;
    w webhook_endpoint%ROWTYPE;
    e outbox_event%ROWTYPE;
    in_flight integer;
BEGIN
    -- The endpoint's row first (as deleting or enabling it takes it, then its deliveries).
    SELECT * INTO w FROM webhook_endpoint
    WHERE id = (SELECT endpoint_id FROM webhook_delivery WHERE id = p_id)
    FOR NO KEY UPDATE;
    IF NOT FOUND OR w.disabled_at IS NOT NULL THEN
        RETURN;
    END IF;
    SELECT * INTO d FROM webhook_delivery
    WHERE id = p_id AND status = 'pending' AND available_at <= statement_timestamp()
      AND (lease_until IS NULL OR notiflow_lease_expired_v1(lease_until, statement_timestamp()))
    FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    -- Leased before, and the lease expired: its worker died or froze mid-attempt, and that
    -- attempt counts as a failed one.
    abandoned := d.leased_by <> '';
    IF abandoned THEN
        UPDATE webhook_attempt a
        SET state = 'finished', error = no_answer,
            duration_ms = greatest(0, (extract(epoch FROM statement_timestamp() - a.created_at)
                                       * 1000)::integer)
        WHERE a.delivery_id = p_id AND a.state = 'started';
        d.last_status_code := NULL;
        d.last_error := no_answer;
    END IF;
    IF d.attempts >= p_max_attempts THEN
        PERFORM notiflow_delivery_give_up_v1(p_id, d.last_status_code, d.last_error,
                                             p_disable_after);
        outcome := 'failed';
        RETURN NEXT;
        RETURN;
    END IF;
    -- The endpoint's deliveries under a live lease (webhook_delivery_leased_idx).
    SELECT count(*) INTO in_flight FROM webhook_delivery
    WHERE endpoint_id = w.id AND lease_until IS NOT NULL AND status = 'pending'
      AND NOT notiflow_lease_expired_v1(lease_until, statement_timestamp());
    IF in_flight >= p_concurrency THEN
        UPDATE webhook_delivery
        SET available_at = statement_timestamp() + p_defer_seconds * interval '1 second',
            nudged_at = CASE WHEN p_defer_nudged THEN statement_timestamp() END,
            lease_until = NULL, leased_by = '', updated_at = statement_timestamp()
        WHERE id = p_id;
        outcome := 'deferred';
        RETURN NEXT;
        RETURN;
    END IF;
    UPDATE webhook_delivery
    SET attempts = attempts + 1, lease_until = statement_timestamp() + p_lease_seconds * interval '1 second',
        leased_by = p_token, nudged_at = NULL, updated_at = statement_timestamp()
    WHERE id = p_id
    RETURNING attempts INTO attempt;
    SELECT * INTO e FROM outbox_event WHERE id = d.event_id;
    INSERT INTO webhook_attempt (delivery_id, endpoint_id, event_id, event_type, attempt, state,
                                 error, duration_ms)
    VALUES (p_id, w.id, e.event_id, e.type, d.attempts + 1, 'started', '', 0)
    RETURNING id INTO attempt_id;
    outcome := 'claimed';
    url := w.url;
    secret := w.secret;
    event_pk := e.id;
    event_id := e.event_id;
    event_type := e.type;
    trigger_id := e.trigger_id;
    workflow_key := e.workflow_key;
    data := e.data;
    event_time := e.time;
    RETURN NEXT;
END
$function$
