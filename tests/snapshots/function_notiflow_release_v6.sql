CREATE OR REPLACE FUNCTION public.notiflow_release_v6(run_id uuid, token text, step_node text, new_status text, new_node text, vars_patch jsonb, new_attempts integer, due_in double precision, nudged boolean, new_error text, finished boolean, reason text, ledger jsonb, step_log jsonb, announced jsonb, inbox jsonb)
 RETURNS TABLE(route_queue text, route_priority smallint, deliveries bigint[])
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
DECLARE
    released boolean;
    workflow bigint;
    send_recorded boolean := false;
    released_run jsonb;  -- what the UPDATE set, as the API shows it (events only)
    run_created timestamptz;  -- the step log's partition key
BEGIN
    -- 1. The fenced update: only while the run is still `processing` under this very lease, so
    -- a worker whose lease expired (and was reclaimed) or whose run was cancelled changes
    -- nothing. First, as in the claim: the run's row is locked before its ledger row.
    UPDATE public.trigger_instance t
    SET status = new_status,
        current_node_id = new_node,
        vars = t.vars || vars_patch,
        attempts = new_attempts,
        available_at = statement_timestamp() + due_in * interval '1 second',
        lease_until = NULL,
        leased_by = '',
        nudged_at = CASE WHEN nudged THEN statement_timestamp() END,
        last_error = new_error,
        completed_at = CASE WHEN finished THEN statement_timestamp() END,
        updated_at = statement_timestamp()
    WHERE t.id = run_id AND t.status = 'processing' AND t.leased_by = token
    RETURNING t.workflow_id, t.priority, t.created_at,
              CASE WHEN announced IS NOT NULL THEN jsonb_build_object(
                  'status', t.status,
                  'cursor', CASE WHEN t.current_node_id IS NOT NULL
                                 THEN jsonb_build_object('current_node_id', t.current_node_id) END,
                  'vars', t.vars,
                  'attempts', t.attempts,
                  'available_at', public.notiflow_api_time_v1(t.available_at),
                  'lease_until', public.notiflow_api_time_v1(t.lease_until),
                  'leased_by', t.leased_by,
                  'last_error', t.last_error,
                  'completed_at', public.notiflow_api_time_v1(t.completed_at),
                  'updated_at', public.notiflow_api_time_v1(t.updated_at)) END
    INTO workflow, route_priority, run_created, released_run;
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
        SET status = 'sent', result = ledger -> 'result', sent_at = statement_timestamp(),
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
                                     started_at, finished_at, input, output, success, error,
                                     run_created_at)
        SELECT run_id, workflow, step_node, step_log ->> 'node_type',
               1 + COALESCE((SELECT max(s.attempt) FROM public.step_log s
                             WHERE s.trigger_id = run_id AND s.node_id = step_node
                               AND (s.run_created_at = run_created
                                    OR s.run_created_at IS NULL)), 0),
               (step_log ->> 'started_at')::timestamptz, statement_timestamp(),
               step_log -> 'input', NULLIF(step_log -> 'output', 'null'::jsonb),
               step_log ->> 'error' = '', step_log ->> 'error', run_created;
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
                inbox -> 'data', statement_timestamp())
        ON CONFLICT (trigger_id, node_id) DO NOTHING;
    END IF;

    -- 5. The events (docs/design/rules.md, rule 10): those of the release with it; a send recorded
    -- by a release that could not apply still announces its message (labelled
    -- 'without-release'), which must not be lost with the release.
    IF announced IS NOT NULL THEN
        IF released THEN
            -- They show the run as the UPDATE left it (its `data.trigger` overlaid with what it
            -- set; a retry's `retry_at` is its new due time): built by the worker from the run
            -- as claimed, they say nothing of what a release sets.
            SELECT jsonb_agg(CASE WHEN e ->> 'gate' <> '' THEN e
                                  WHEN e #> '{data,step}' ? 'retry_at'
                                  THEN jsonb_set(jsonb_set(e, '{data,trigger}',
                                                           (e #> '{data,trigger}') || released_run),
                                                 '{data,step,retry_at}',
                                                 released_run -> 'available_at')
                                  ELSE jsonb_set(e, '{data,trigger}',
                                                 (e #> '{data,trigger}') || released_run) END
                             ORDER BY n)
            INTO announced
            FROM jsonb_array_elements(announced) WITH ORDINALITY AS a (e, n);
            deliveries := public.notiflow_outbox_write_v2(announced, '');
        ELSIF send_recorded THEN
            PERFORM public.notiflow_outbox_write_v2(announced, 'without-release');
        END IF;
    END IF;

    -- The route of the run's next nudge (rule 11): its workflow's queue as it is now, its
    -- priority. No row when the release did not apply (the sweeper nudges the deliveries).
    IF released THEN
        SELECT w.queue INTO route_queue FROM public.workflows_workflow w WHERE w.id = workflow;
        RETURN NEXT;
    END IF;
END
$function$
