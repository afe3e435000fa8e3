"""A webhook delivery's claim and its fenced finish, one database function each (issue 32 §3;
docs/design/events.md, "Events and webhooks"): a delivery costs two round trips plus its POST, as a
run's step does, and every due time is on the database's clock.

- `notiflow_delivery_claim_v1` takes the endpoint's row (claims to one endpoint take turns, so
  its count in flight is not outrun), then the delivery if it is due and free; finishes as failed
  the attempt a dead worker left started; at the attempt cap fails the delivery instead; beyond
  the endpoint's concurrency defers it; else leases it (now() + the lease), counts the attempt and
  records it `started`. Returns one row: `claimed` with what the POST needs, `failed` or
  `deferred`; no row when the delivery was not due, held, or its endpoint disabled.
- `notiflow_delivery_finish_v1` finishes the attempt (always: it happened) and, while the token
  still holds the lease, writes the outcome the worker classified (`delivered`, `gone`, `failed`)
  with the back-off due at now() + the wait the worker passes. Returns the delivery's new status
  and the countdown to nudge it with (NULL: no nudge); no row when the lease was lost.
- `notiflow_delivery_give_up_v1` is the one statement of "the delivery fails for good and counts
  towards disabling its endpoint", which both call.

The clock is the database's: statement_timestamp(), which is now() for these statements in
production (each runs on its own, in autocommit) and is what the ORM's Now() writes the
deliveries' times with, inside a longer transaction too (a test's).

The statuses are written here as the values of events.models' choices: a change of them is a new
version of these functions. Versioned by name, as `notiflow_lease_expired_v1` (triggers 0011).
"""

from django.db import migrations

GIVE_UP = """
CREATE FUNCTION notiflow_delivery_give_up_v1(
    p_id bigint, p_status_code integer, p_error text, p_disable_after integer)
RETURNS void LANGUAGE sql AS $$
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
$$;
"""

CLAIM = """
CREATE FUNCTION notiflow_delivery_claim_v1(
    p_id bigint, p_token text, p_lease_seconds double precision, p_max_attempts integer,
    p_concurrency integer, p_defer_seconds double precision, p_defer_nudged boolean,
    p_disable_after integer)
RETURNS TABLE (outcome text, abandoned boolean, attempt_id bigint, attempt integer, url text,
               secret text,
               event_pk bigint, event_id uuid, event_type text, trigger_id uuid,
               workflow_key text, data jsonb, event_time timestamptz)
LANGUAGE plpgsql AS $$
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
            duration_ms = greatest(0, (extract(epoch FROM clock_timestamp() - a.created_at)
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
$$;
"""

FINISH = """
CREATE FUNCTION notiflow_delivery_finish_v1(
    p_id bigint, p_token text, p_attempt_id bigint, p_answer text, p_status_code integer,
    p_error text, p_duration_ms integer, p_retry_seconds double precision,
    p_retry_nudged boolean, p_max_attempts integer, p_disable_after integer)
RETURNS TABLE (status text, countdown double precision)
LANGUAGE plpgsql AS $$
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
$$;
"""

DROP = """
DROP FUNCTION IF EXISTS notiflow_delivery_finish_v1(
    bigint, text, bigint, text, integer, text, integer, double precision, boolean, integer,
    integer);
DROP FUNCTION IF EXISTS notiflow_delivery_claim_v1(
    bigint, text, double precision, integer, integer, double precision, boolean, integer);
DROP FUNCTION IF EXISTS notiflow_delivery_give_up_v1(bigint, integer, text, integer);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0003_attempt_started_and_leased_index"),
        ("triggers", "0011_lease_expired_function"),
    ]

    operations = [migrations.RunSQL(GIVE_UP + CLAIM + FINISH, DROP)]
