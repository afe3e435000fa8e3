"""Version 2 of the run's claim and release (issue 38), whole, beside version 1 (triggers migration
0013), which stays for the statements workers of the previous release have prepared until none
is left running:

- `notiflow_claim_v2` also returns the suppression list's generation for a send node
  (deliveries migration 0005), with which a worker checks a send's recipients in memory, and
  whether any webhook endpoint exists (`announced_to`): with none, the worker builds no events
  for the release (their JSON was built for every send and dropped unread).
- `notiflow_release_v2` takes an `inbox` argument: an in-app message stored with the release
  (it was the step's own statement after it).

Everything else is version 1's, line for line (tests/snapshots/function_*.sql).
"""

from django.db import migrations

CLAIM = """
CREATE FUNCTION notiflow_claim_v2(
    run_id uuid, worker text, lease_seconds float8, channels text[]
) RETURNS TABLE (claimed public.trigger_instance, ledger_send_count integer,
                 ledger_result jsonb, claimed_at timestamptz,
                 suppression_generation bigint, announced_to boolean)
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
    -- Whether the step's events have anyone to go to: with no webhook endpoint the release's
    -- events would be dropped unread (notiflow_outbox_write_v1), so the worker builds none. An
    -- endpoint created while the step runs hears from the run's next step on.
    announced_to := EXISTS (SELECT 1 FROM public.webhook_endpoint);

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
        -- The suppression list's generation (deliveries migration 0005): a worker holding the
        -- list as of it checks the send's recipients without a statement of its own.
        SELECT g.generation INTO suppression_generation
        FROM public.suppression_generation g WHERE g.id = 1;
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
COMMENT ON FUNCTION notiflow_claim_v2(uuid, text, float8, text[]) IS
    'Leases a run that is due (or whose lease expired), with its event and its send ledger row; the suppression list''s generation, whether any endpoint hears events. triggers/state.py';
"""

RELEASE = """
CREATE FUNCTION notiflow_release_v2(
    run_id uuid, token text, step_node text,
    new_status text, new_node text, vars_patch jsonb, new_attempts integer,
    due_at timestamptz, nudged boolean, new_error text, finished boolean, reason text,
    ledger jsonb, step_log jsonb, announced jsonb, inbox jsonb
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

    -- 4. An in-app message (docs/design/inbox.md, "In-app inbox"), with the release only: stored
    -- with the step's outcome or not at all, once per (run, node) however often the step runs.
    IF released AND inbox IS NOT NULL THEN
        INSERT INTO public.inbox_message (id, recipient, trigger_id, node_id, workflow_key,
                                          category, title, body, body_html, action_url, data,
                                          created_at)
        VALUES ((inbox ->> 'id')::uuid, inbox ->> 'recipient', run_id, step_node,
                inbox ->> 'workflow_key', inbox ->> 'category', inbox ->> 'title',
                inbox ->> 'body', inbox ->> 'body_html', inbox ->> 'action_url',
                inbox -> 'data', now())
        ON CONFLICT (trigger_id, node_id) DO NOTHING;
    END IF;

    -- 5. The events (docs/design/rules.md, rule 10): those of the release with it; a send recorded
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
COMMENT ON FUNCTION notiflow_release_v2(uuid, text, text, text, text, jsonb, integer,
                                        timestamptz, boolean, text, boolean, text, jsonb, jsonb,
                                        jsonb, jsonb) IS
    'Ends a step under its lease: the fenced update and its event, the send ledger, the step log, an in-app message, the events. triggers/state.py';
"""

PRIVATE = """
REVOKE EXECUTE ON FUNCTION notiflow_claim_v2(uuid, text, float8, text[]) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION notiflow_release_v2(uuid, text, text, text, text, jsonb, integer,
                                               timestamptz, boolean, text, boolean, text, jsonb,
                                               jsonb, jsonb, jsonb) FROM PUBLIC;
"""

DROP = """
DROP FUNCTION IF EXISTS notiflow_release_v2(uuid, text, text, text, text, jsonb, integer,
                                            timestamptz, boolean, text, boolean, text, jsonb,
                                            jsonb, jsonb, jsonb);
DROP FUNCTION IF EXISTS notiflow_claim_v2(uuid, text, float8, text[]);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("triggers", "0014_wait_event_status"),
        ("deliveries", "0005_suppression_generation"),
        ("inbox", "0001_initial"),
    ]

    operations = [migrations.RunSQL(CLAIM + RELEASE + PRIVATE, DROP)]
