CREATE OR REPLACE FUNCTION public.notiflow_run_replay_v1(run_id uuid, key text, actor text, reason text)
 RETURNS TABLE(replay_id uuid, route_queue text, route_priority smallint)
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public'
AS $function$
WITH source AS (
    SELECT o.workflow_id, o.workflow_version_id, o.payload, o.recipient, o.locale, o.tenant,
           o.priority, o.cancellation_key, v.definition ->> 'entry_node_id' AS entry_node_id
    FROM public.trigger_instance o
    JOIN public.workflows_workflowversion v ON v.id = o.workflow_version_id
    WHERE o.id = notiflow_run_replay_v1.run_id
), inserted AS (
    INSERT INTO public.trigger_instance (
        id, workflow_id, workflow_version_id, idempotency_key, request_hash, cancellation_key,
        payload, recipient, locale, tenant, status, current_node_id, vars, priority, attempts,
        available_at, lease_until, leased_by, nudged_at, last_error, created_by, created_at,
        updated_at, completed_at, deleted_at, delete_reason)
    SELECT gen_random_uuid(), source.workflow_id, source.workflow_version_id,
           notiflow_run_replay_v1.key, '', source.cancellation_key, source.payload,
           source.recipient, source.locale, source.tenant, 'enqueued', source.entry_node_id,
           '{}'::jsonb, source.priority, 0, statement_timestamp(), NULL, '',
           statement_timestamp(), '', notiflow_run_replay_v1.actor, statement_timestamp(),
           statement_timestamp(), NULL, NULL, ''
    FROM source
    ON CONFLICT (workflow_id, idempotency_key) WHERE deleted_at IS NULL DO NOTHING
    RETURNING id, workflow_id, priority, current_node_id
), created_event AS (
    INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
    SELECT inserted.id, '', 'enqueued', notiflow_run_replay_v1.reason,
           notiflow_run_replay_v1.actor, inserted.current_node_id
    FROM inserted
)
SELECT inserted.id, w.queue::text, inserted.priority
FROM inserted JOIN public.workflows_workflow w ON w.id = inserted.workflow_id
$function$
