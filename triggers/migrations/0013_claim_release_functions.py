"""The run's claim and release, each readable whole in one place (issue 32 §2): the database
functions `notiflow_claim_v1` and `notiflow_release_v1`, and the outbox write they share with
events_record, `notiflow_outbox_write_v1`, with its rule of who subscribes,
`notiflow_subscribes_v1`.

One call each, so a step stays at its round trips (a claim, a release). Every write of a step
is in these bodies, top to bottom: the claim locks and leases the row, writes its event and
opens the send ledger for a send node; the release makes the fenced update with its event,
records the send ledger's outcome, the step log and the events. What the release writes beside
the trigger is driven by its jsonb arguments (NULL: nothing this time); the callers are
triggers/state.py (the call statements, in triggers/sql.py) and workers/services/engine.py.

`SECURITY DEFINER` with a fixed search_path (and every name qualified): the claim and the
release are the only way the `worker` role writes trigger_event, step_log, send_ledger and
outbox_event, so it holds no INSERT or UPDATE on them (workers/services/roles.py); EXECUTE is
revoked from PUBLIC here and granted to that role by `setup_db_roles`. The outbox write runs as
its caller (the release's owner, or the web process's role, which holds the grants).

Versioned by name, as `notiflow_lease_expired_v1` (migration 0011): a change of any of them is
a `_v2` created by a new migration, and the callers move to the new name in the same change;
statements that connections have prepared keep calling the function they were planned with.
Statuses are spelled here, once per version: the values of TriggerStatus, SendStatus and
DeliveryStatus as this version knows them (tests/test_sql_snapshots.py holds the bodies as
installed).
"""

from django.db import migrations

SUBSCRIBES = """
CREATE FUNCTION notiflow_subscribes_v1(
    endpoint_events text[], endpoint_workflows text[], event_type text, workflow_key text
) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT (event_type = ANY (endpoint_events) OR '*' = ANY (endpoint_events))
             AND (endpoint_workflows = '{}' OR workflow_key = ANY (endpoint_workflows)) $$;
COMMENT ON FUNCTION notiflow_subscribes_v1(text[], text[], text, text) IS
    'An endpoint with these events and workflows subscribes to this event. events/sql.py';
"""

OUTBOX_WRITE = """
CREATE FUNCTION notiflow_outbox_write_v1(announced jsonb, open_gate text)
RETURNS bigint[] LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
DECLARE
    to_nudge bigint[];
BEGIN
    -- Nobody to tell: the events are not even read out of their JSON (every release that
    -- announces something pays for this function).
    IF NOT EXISTS (SELECT 1 FROM public.webhook_endpoint) THEN
        RETURN NULL;
    END IF;
    -- The events labelled `open_gate` that some endpoint subscribes to, in their order (so `id`
    -- orders one trigger's events); one pending delivery per (event, subscribing endpoint),
    -- disabled endpoints included (they keep their events).
    WITH written AS (
        INSERT INTO public.outbox_event (event_id, type, trigger_id, workflow_key, data, time)
        SELECT e.event_id, e.type, e.trigger_id, e.workflow_key, e.data, now()
        FROM ROWS FROM (jsonb_to_recordset(announced)
                        AS (event_id uuid, type text, trigger_id uuid, workflow_key text,
                            data jsonb, gate text))
             WITH ORDINALITY AS e (event_id, type, trigger_id, workflow_key, data, gate, n)
        WHERE e.gate = open_gate
          AND EXISTS (SELECT 1 FROM public.webhook_endpoint w
                      WHERE public.notiflow_subscribes_v1(w.events, w.workflows, e.type,
                                                          e.workflow_key))
        ORDER BY e.n
        RETURNING id, type, workflow_key
    ), fanned_out AS (
        INSERT INTO public.webhook_delivery (event_id, endpoint_id, status, attempts,
                                             available_at, nudged_at, last_error, leased_by,
                                             created_at, updated_at)
        SELECT written.id, w.id, 'pending', 0, now(),
               CASE WHEN w.disabled_at IS NULL THEN now() END, '', '', now(), now()
        FROM written JOIN public.webhook_endpoint w
          ON public.notiflow_subscribes_v1(w.events, w.workflows, written.type,
                                           written.workflow_key)
        RETURNING id, endpoint_id
    )
    -- The deliveries to nudge after commit: those to enabled endpoints.
    SELECT array_agg(d.id) INTO to_nudge
    FROM fanned_out d JOIN public.webhook_endpoint w ON w.id = d.endpoint_id
    WHERE w.disabled_at IS NULL;
    RETURN to_nudge;
END
$$;
COMMENT ON FUNCTION notiflow_outbox_write_v1(jsonb, text) IS
    'Records the announced events labelled open_gate that someone subscribes to, with their deliveries; the ids to nudge. events/sql.py';
"""

CLAIM = """
CREATE FUNCTION notiflow_claim_v1(
    run_id uuid, worker text, lease_seconds float8, channels text[]
) RETURNS TABLE (claimed public.trigger_instance, ledger_send_count integer,
                 ledger_result jsonb, claimed_at timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    prior_status text;
    prior_deleted timestamptz;
    node_type text;
BEGIN
    -- 1. The lease: on a run that is due, or whose lease expired (its worker died or hung),
    -- locked first. A soft-deleted run is never claimed (docs/design/rules.md, rule 12). That test is
    -- made on the locked row, not beside `id = run_id`: there it lets the planner pick the
    -- partial unique index (workflow, idempotency_key) WHERE deleted_at IS NULL over the
    -- primary key and scan it whole, which it did on a table not yet analysed.
    SELECT p.status, p.deleted_at INTO prior_status, prior_deleted
    FROM public.trigger_instance p
    WHERE p.id = run_id
      AND ((p.status = 'enqueued' AND p.available_at <= now())
           OR (p.status = 'processing' AND public.notiflow_lease_expired_v1(p.lease_until, now())))
    FOR UPDATE;
    IF NOT FOUND OR prior_deleted IS NOT NULL THEN
        RETURN;  -- not due, leased, terminal, deleted or unknown: no row
    END IF;
    UPDATE public.trigger_instance t
    SET status = 'processing', lease_until = now() + lease_seconds * interval '1 second',
        leased_by = worker, nudged_at = NULL, updated_at = now(),
        -- A lease that expired is an attempt that died with its worker: it counts, so a node
        -- that kills every worker running it ends failed instead of being reclaimed forever.
        attempts = t.attempts + CASE WHEN prior_status = 'processing' THEN 1 ELSE 0 END
    WHERE t.id = run_id
    RETURNING t.* INTO claimed;
    claimed_at := now();

    -- 2. Its event.
    INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
    VALUES (run_id, prior_status, 'processing',
            CASE WHEN prior_status = 'processing' THEN 'lease expired; reclaimed'
                 ELSE 'claimed' END,
            worker, claimed.current_node_id);

    -- 3. The send ledger (docs/design/rules.md, rule 6), when the node is a send node of the run's
    -- version: its `sending` row, or its send_count raised for another attempt at a send that
    -- never completed. A completed send is left alone, and its result comes back to be reused.
    -- Committed with the lease, so before any provider call.
    SELECT node.type INTO node_type
    FROM public.workflows_workflowversion version
    CROSS JOIN LATERAL jsonb_to_recordset(version.definition -> 'nodes') AS node (id text, type text)
    WHERE version.id = claimed.workflow_version_id AND node.id = claimed.current_node_id;
    IF node_type = ANY (channels) THEN
        INSERT INTO public.send_ledger AS l (trigger_id, node_id, idempotency_key, channel,
                                             status, send_count, created_at)
        VALUES (run_id, claimed.current_node_id, run_id::text || ':' || claimed.current_node_id,
                node_type, 'sending', 1, now())
        ON CONFLICT (trigger_id, node_id) DO UPDATE
            SET send_count = l.send_count + 1
            WHERE l.status = 'sending'
        RETURNING l.send_count INTO ledger_send_count;
        IF NOT FOUND THEN
            SELECT l.result INTO ledger_result FROM public.send_ledger l
            WHERE l.trigger_id = run_id AND l.node_id = claimed.current_node_id
              AND l.status = 'sent';
        END IF;
    END IF;
    RETURN NEXT;
END
$$;
COMMENT ON FUNCTION notiflow_claim_v1(uuid, text, float8, text[]) IS
    'Leases a run that is due (or whose lease expired), with its event and its send ledger row. triggers/state.py';
"""

RELEASE = """
CREATE FUNCTION notiflow_release_v1(
    run_id uuid, token text, step_node text,
    new_status text, new_node text, vars_patch jsonb, new_attempts integer,
    due_at timestamptz, nudged boolean, new_error text, finished boolean, reason text,
    ledger jsonb, step_log jsonb, announced jsonb
) RETURNS TABLE (route_queue text, route_priority smallint, deliveries bigint[])
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    released boolean;
    workflow bigint;
    send_recorded boolean := false;
BEGIN
    -- 1. The fenced update: only while the run is still `processing` under this very lease, so
    -- a worker whose lease expired (and was reclaimed) or whose run was cancelled changes
    -- nothing. First, as in the claim: the run's row is locked before its ledger row.
    UPDATE public.trigger_instance t
    SET status = new_status,
        current_node_id = new_node,
        vars = t.vars || vars_patch,
        attempts = new_attempts,
        available_at = due_at,
        lease_until = NULL,
        leased_by = '',
        nudged_at = CASE WHEN nudged THEN now() END,
        last_error = new_error,
        completed_at = CASE WHEN finished THEN now() END,
        updated_at = now()
    WHERE t.id = run_id AND t.status = 'processing' AND t.leased_by = token
    RETURNING t.workflow_id, t.priority INTO workflow, route_priority;
    released := FOUND;
    IF released THEN
        INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor,
                                          node_id)
        VALUES (run_id, 'processing', new_status, reason, token, step_node);
    END IF;

    -- 2. The send ledger: in any case, released or not. A send that happened is `sent` with
    -- the provider's answer, so no later attempt repeats it; one that reached a provider and
    -- failed adds that provider; a slot opened but never used (the templates failed) gives
    -- its count back.
    IF ledger ->> 'outcome' = 'sent' THEN
        UPDATE public.send_ledger l
        SET status = 'sent', result = ledger -> 'result', sent_at = now(),
            provider = ledger ->> 'provider',
            provider_message_id = ledger ->> 'provider_message_id',
            providers = l.providers || (ledger ->> 'provider')
        WHERE l.trigger_id = run_id AND l.node_id = step_node AND l.status = 'sending';
        send_recorded := FOUND;
    ELSIF ledger ->> 'outcome' = 'failed' THEN
        UPDATE public.send_ledger l SET providers = l.providers || (ledger ->> 'provider')
        WHERE l.trigger_id = run_id AND l.node_id = step_node AND l.status = 'sending';
    ELSIF ledger ->> 'outcome' = 'unused' THEN
        UPDATE public.send_ledger l SET send_count = l.send_count - 1
        WHERE l.trigger_id = run_id AND l.node_id = step_node AND l.status = 'sending'
          AND l.send_count > 0;
    END IF;

    -- 3. The step log, with the release only. Its attempt number continues after the node's
    -- last logged attempt rather than following the run's `attempts` (the retry budget, which
    -- an operator's retry resets): unique per (trigger, node, attempt) however often a node is
    -- retried. Only the lease holder gets here, so two writers never pick the same number.
    IF released AND step_log IS NOT NULL THEN
        INSERT INTO public.step_log (trigger_id, workflow_id, node_id, node_type, attempt,
                                     started_at, finished_at, input, output, success, error)
        SELECT run_id, workflow, step_node, step_log ->> 'node_type',
               1 + COALESCE((SELECT max(s.attempt) FROM public.step_log s
                             WHERE s.trigger_id = run_id AND s.node_id = step_node), 0),
               (step_log ->> 'started_at')::timestamptz, (step_log ->> 'finished_at')::timestamptz,
               step_log -> 'input', NULLIF(step_log -> 'output', 'null'::jsonb),
               step_log ->> 'error' = '', step_log ->> 'error';
    END IF;

    -- 4. The events (docs/design/rules.md, rule 10): those of the release with it; a send recorded
    -- by a release that could not apply still announces its message (labelled
    -- 'without-release'), which must not be lost with the release.
    IF announced IS NOT NULL THEN
        IF released THEN
            deliveries := public.notiflow_outbox_write_v1(announced, '');
        ELSIF send_recorded THEN
            PERFORM public.notiflow_outbox_write_v1(announced, 'without-release');
        END IF;
    END IF;

    -- The route of the run's next nudge (rule 11): its workflow's queue as it is now, its
    -- priority. No row when the release did not apply (the sweeper nudges the deliveries).
    IF released THEN
        SELECT w.queue INTO route_queue FROM public.workflows_workflow w WHERE w.id = workflow;
        RETURN NEXT;
    END IF;
END
$$;
COMMENT ON FUNCTION notiflow_release_v1(uuid, text, text, text, text, jsonb, integer,
                                        timestamptz, boolean, text, boolean, text, jsonb, jsonb,
                                        jsonb) IS
    'Ends a step under its lease: the fenced update and its event, the send ledger, the step log, the events. triggers/state.py';
"""

PRIVATE = """
REVOKE EXECUTE ON FUNCTION notiflow_claim_v1(uuid, text, float8, text[]) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION notiflow_release_v1(uuid, text, text, text, text, jsonb, integer,
                                               timestamptz, boolean, text, boolean, text, jsonb,
                                               jsonb, jsonb) FROM PUBLIC;
"""

DROP = """
DROP FUNCTION IF EXISTS notiflow_release_v1(uuid, text, text, text, text, jsonb, integer,
                                            timestamptz, boolean, text, boolean, text, jsonb,
                                            jsonb, jsonb);
DROP FUNCTION IF EXISTS notiflow_claim_v1(uuid, text, float8, text[]);
DROP FUNCTION IF EXISTS notiflow_outbox_write_v1(jsonb, text);
DROP FUNCTION IF EXISTS notiflow_subscribes_v1(text[], text[], text, text);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("triggers", "0012_trigger_recipient"),
        ("workers", "0011_suppression_to_deliveries"),
        ("events", "0003_attempt_started_and_leased_index"),
        ("workflows", "0002_queue_priority_dotted_keys"),
    ]

    operations = [migrations.RunSQL(SUBSCRIBES + OUTBOX_WRITE + CLAIM + RELEASE + PRIVATE, DROP)]
