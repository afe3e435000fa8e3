"""A fan-out's chunk of runs as the state machine's function (issue 45 §1, §3):
`notiflow_fanout_runs_insert_v1`, so the worker role, which runs the chunks, holds no INSERT on
`trigger_instance` (workers/services/roles.py).

It makes the runs of one chunk as intake makes runs (triggers/statements/intake.sql): for one
workflow, looked up by key, and many recipients, where only the derived key, its request hash
and the recipient differ from run to run (`runs`: a JSON array of [key, hash, recipient], or of
[key, hash, recipient, id, trace context] while tracing: the run's id made beforehand, so that its
trace's root span, made before the run, names it, docs/design/observability.md "Traces"); the
payload, priority and cancellation key are the fan-out's, once. A run is inserted `enqueued` at
the workflow's entry node, due and nudged now, with its `created` event, when the workflow is
active with a version and a live worker serves its queue (the registry's
`notiflow_queue_served_v1`), unless `require_worker` is off; a key held by a run not deleted
is skipped. In key order, so two chunks whose keys overlap cannot deadlock. No row when the
workflow does not exist; else one row per run inserted, or one with NULLs when none was: the
workflow's id, whether it is active and has a version, its queue and whether it is served,
then the run's id, key and priority.

Its parameters are named with the function's name (`notiflow_fanout_runs_insert_v1.priority`):
in a LANGUAGE sql body a column of the same name would otherwise win. The clock is
`statement_timestamp()` (docs/design/rules.md, rule 15); statuses are spelled here, once
per version, as in the claim and the release. LANGUAGE sql, one statement; SECURITY DEFINER
with a fixed search_path and every name qualified, EXECUTE revoked from PUBLIC and granted by
`setup_db_roles` to the worker.
"""

from django.db import migrations

CREATE = """
CREATE FUNCTION notiflow_fanout_runs_insert_v1(
    workflow text, runs json, payload text, priority integer, cancellation_key text,
    actor text, require_worker boolean, live_within float8)
RETURNS TABLE (workflow_id bigint, active boolean, has_version boolean, queue text,
               served boolean, run_id uuid, run_key text, run_priority smallint)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
WITH r AS (
    SELECT COALESCE((x.run ->> 3)::uuid, gen_random_uuid()) AS id, x.run ->> 0 AS key,
           x.run ->> 1 AS hash, x.run ->> 2 AS recipient,
           COALESCE(x.run ->> 4, '') AS trace_context
    FROM json_array_elements(notiflow_fanout_runs_insert_v1.runs) AS x (run)
), target AS (
    SELECT w.id AS workflow_id, w.active, v.id AS version_id, w.queue, s.served,
           w.priority, v.definition ->> 'entry_node_id' AS entry_node_id
    FROM public.workflows_workflow w
    LEFT JOIN public.workflows_workflowversion v ON v.id = w.current_version_id
    CROSS JOIN LATERAL public.notiflow_queue_served_v1(w.queue, notiflow_fanout_runs_insert_v1.live_within)
        AS s (served)
    WHERE w.key = notiflow_fanout_runs_insert_v1.workflow
), inserted AS (
    INSERT INTO public.trigger_instance (
        id, workflow_id, workflow_version_id, idempotency_key, request_hash, cancellation_key,
        payload, recipient, locale, status, current_node_id, vars, priority, attempts,
        available_at, lease_until, leased_by, nudged_at, last_error, created_by, created_at,
        updated_at, completed_at, deleted_at, delete_reason, trace_context)
    SELECT r.id, target.workflow_id, target.version_id, r.key, r.hash,
           notiflow_fanout_runs_insert_v1.cancellation_key, notiflow_fanout_runs_insert_v1.payload::jsonb,
           COALESCE(r.recipient, ''), '', 'enqueued', target.entry_node_id, '{}'::jsonb,
           COALESCE(notiflow_fanout_runs_insert_v1.priority, target.priority), 0, statement_timestamp(), NULL, '',
           statement_timestamp(), '', notiflow_fanout_runs_insert_v1.actor, statement_timestamp(),
           statement_timestamp(), NULL, NULL, '', r.trace_context
    FROM r CROSS JOIN target
    WHERE target.active AND target.version_id IS NOT NULL
      AND (target.served OR NOT notiflow_fanout_runs_insert_v1.require_worker)
    ORDER BY r.key
    ON CONFLICT (workflow_id, idempotency_key) WHERE deleted_at IS NULL DO NOTHING
    RETURNING id, idempotency_key, priority, current_node_id
), created_event AS (
    INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
    SELECT inserted.id, '', 'enqueued', 'created', notiflow_fanout_runs_insert_v1.actor, inserted.current_node_id
    FROM inserted
)
SELECT target.workflow_id, target.active, target.version_id IS NOT NULL, target.queue::text,
       target.served, inserted.id, inserted.idempotency_key::text, inserted.priority
FROM target LEFT JOIN inserted ON true
$$;
COMMENT ON FUNCTION notiflow_fanout_runs_insert_v1(text, json, text, integer, text, text,
                                                   boolean, float8) IS
    'A fan-out chunk''s runs, each with its created event. triggers/fanout.py';
REVOKE EXECUTE ON FUNCTION notiflow_fanout_runs_insert_v1(text, json, text, integer, text, text,
                                                          boolean, float8) FROM PUBLIC;
"""
DROP = """
DROP FUNCTION IF EXISTS notiflow_fanout_runs_insert_v1(text, json, text, integer, text, text,
                                                       boolean, float8);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("triggers", "0022_release_v4_outbox_write_v2_one_clock"),
        ("registry", "0002_queue_served_function"),
        ("workflows", "0001_initial"),
    ]

    operations = [migrations.RunSQL(CREATE, DROP)]
