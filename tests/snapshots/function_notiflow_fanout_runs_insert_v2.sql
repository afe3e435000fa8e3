CREATE OR REPLACE FUNCTION public.notiflow_fanout_runs_insert_v2(workflow text, runs json, payload text, priority integer, cancellation_key text, actor text, require_worker boolean, live_within double precision, tenant text)
 RETURNS TABLE(workflow_id bigint, active boolean, has_version boolean, queue text, served boolean, run_id uuid, run_key text, run_priority smallint)
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
WITH r AS (
    SELECT COALESCE((x.run ->> 3)::uuid, gen_random_uuid()) AS id, x.run ->> 0 AS key,
           x.run ->> 1 AS hash, x.run ->> 2 AS recipient,
           COALESCE(x.run ->> 4, '') AS trace_context
    FROM json_array_elements(notiflow_fanout_runs_insert_v2.runs) AS x (run)
), target AS (
    SELECT w.id AS workflow_id, w.active, v.id AS version_id, w.queue, s.served,
           w.priority, v.definition ->> 'entry_node_id' AS entry_node_id
    FROM public.workflows_workflow w
    LEFT JOIN public.workflows_workflowversion v ON v.id = w.current_version_id
    CROSS JOIN LATERAL public.notiflow_queue_served_v1(w.queue, notiflow_fanout_runs_insert_v2.live_within)
        AS s (served)
    WHERE w.key = notiflow_fanout_runs_insert_v2.workflow
), inserted AS (
    INSERT INTO public.trigger_instance (
        id, workflow_id, workflow_version_id, idempotency_key, request_hash, cancellation_key,
        payload, recipient, locale, tenant, status, current_node_id, vars, priority, attempts,
        available_at, lease_until, leased_by, nudged_at, last_error, created_by, created_at,
        updated_at, completed_at, deleted_at, delete_reason, trace_context)
    SELECT r.id, target.workflow_id, target.version_id, r.key, r.hash,
           notiflow_fanout_runs_insert_v2.cancellation_key, notiflow_fanout_runs_insert_v2.payload::jsonb,
           COALESCE(r.recipient, ''), '', COALESCE(notiflow_fanout_runs_insert_v2.tenant, ''), 'enqueued', target.entry_node_id, '{}'::jsonb,
           COALESCE(notiflow_fanout_runs_insert_v2.priority, target.priority), 0, statement_timestamp(), NULL, '',
           statement_timestamp(), '', notiflow_fanout_runs_insert_v2.actor, statement_timestamp(),
           statement_timestamp(), NULL, NULL, '', r.trace_context
    FROM r CROSS JOIN target
    WHERE target.active AND target.version_id IS NOT NULL
      AND (target.served OR NOT notiflow_fanout_runs_insert_v2.require_worker)
    ORDER BY r.key
    ON CONFLICT (workflow_id, idempotency_key) WHERE deleted_at IS NULL DO NOTHING
    RETURNING id, idempotency_key, priority, current_node_id
), created_event AS (
    INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
    SELECT inserted.id, '', 'enqueued', 'created', notiflow_fanout_runs_insert_v2.actor, inserted.current_node_id
    FROM inserted
)
SELECT target.workflow_id, target.active, target.version_id IS NOT NULL, target.queue::text,
       target.served, inserted.id, inserted.idempotency_key::text, inserted.priority
FROM target LEFT JOIN inserted ON true
$function$
