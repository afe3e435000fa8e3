CREATE OR REPLACE FUNCTION public.notiflow_claim_v3(run_id uuid, worker text, lease_seconds double precision, channels text[])
 RETURNS TABLE(claimed trigger_instance, ledger_send_count integer, ledger_result jsonb, claimed_at timestamp with time zone, suppression_generation bigint, announced_to boolean)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
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
      AND ((p.status = 'enqueued' AND p.available_at <= statement_timestamp())
           OR (p.status = 'processing' AND public.notiflow_lease_expired_v1(p.lease_until, statement_timestamp())))
    FOR UPDATE;
    IF NOT FOUND OR prior_deleted IS NOT NULL THEN
        RETURN;  -- not due, leased, terminal, deleted or unknown: no row
    END IF;
    UPDATE public.trigger_instance t
    SET status = 'processing', lease_until = statement_timestamp() + lease_seconds * interval '1 second',
        leased_by = worker, nudged_at = NULL, updated_at = statement_timestamp(),
        -- A lease that expired is an attempt that died with its worker: it counts, so a node
        -- that kills every worker running it ends failed instead of being reclaimed forever.
        attempts = t.attempts + CASE WHEN prior_status = 'processing' THEN 1 ELSE 0 END
    WHERE t.id = run_id
    RETURNING t.* INTO claimed;
    claimed_at := statement_timestamp();
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
                node_type, 'sending', 1, statement_timestamp())
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
$function$
