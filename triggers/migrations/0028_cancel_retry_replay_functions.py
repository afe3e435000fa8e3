"""The operator's cancel, retry and replay as the state machine's own functions (issue 49 §2;
docs/bulk-actions.md): triggers/state.py calls them for the web process, the admin, the shell
and the workers' bulk actions alike, so the `worker` role, which runs a bulk action's chunks,
changes runs through them and holds no UPDATE of its own on `trigger_instance`, nor INSERT on
`outbox_event` (workers/services/roles.py).

- `notiflow_runs_cancel_v1(run_ids, actor, reason, announced)` locks the runs in id order (two
  cancels never deadlock) and cancels each one that is not over (`completed_at` and
  `updated_at` now, the lease cleared), with its status event; a soft-deleted run too (delete
  is orthogonal to status, docs/design/rules.md rule 12). `announced` is their
  `trigger.cancelled`, built by the caller from the runs as it locked them; each shows its run
  as this UPDATE left it (the columns overlaid as `notiflow_release_v5` overlays a release's,
  triggers migration 0024) and is written by `notiflow_outbox_write_v2` with its deliveries;
  the events of a run not cancelled are dropped. One row per run cancelled, in id order: the
  run as it is now, and the deliveries to nudge after commit (the same on every row).
- `notiflow_run_retry_v1(run_id, actor, reason)` puts a failed run, not deleted, back to
  `enqueued` at the node that failed: attempts reset, due and nudged now, its error and
  `completed_at` cleared, with its status event. One row (the run as it is now, and its
  workflow's queue for its nudge), or none when the run is not such a run (the caller says why).
- `notiflow_run_replay_v1(run_id, key, actor, reason)` is triggers/statements/run_replay.sql
  made a function: a new run of the same workflow version with the same payload, recipient,
  locale, tenant, priority and cancellation key, at the version's entry node, due and nudged
  now, under the key `key`, with its `created` event; nothing when a run not deleted of the
  workflow holds `key` already. The tenant is new here (the statement predates tenants).

The clock is `statement_timestamp()` (rule 15); statuses are spelled here, once per version, as
in the claim and the release. SECURITY DEFINER with a fixed search_path and every name
qualified; EXECUTE revoked from PUBLIC and granted by `setup_db_roles` to the worker (a bulk
action's chunks) and the web process (the API's and the admin's cancel and retry). Versioned by
name: a change is a `_v2` in a new migration (tests/snapshots/function_*.sql hold the bodies).
"""

from django.db import migrations

# What a change shows of its run in its events, as `notiflow_release_v5` writes it (and
# triggers/representation.py, which tests/test_rule_homes.py holds it to).
_SHOWN = """jsonb_build_object(
                  'status', c.status,
                  'cursor', CASE WHEN c.current_node_id IS NOT NULL
                                 THEN jsonb_build_object('current_node_id', c.current_node_id) END,
                  'vars', c.vars,
                  'attempts', c.attempts,
                  'available_at', public.notiflow_api_time_v1(c.available_at),
                  'lease_until', public.notiflow_api_time_v1(c.lease_until),
                  'leased_by', c.leased_by,
                  'last_error', c.last_error,
                  'completed_at', public.notiflow_api_time_v1(c.completed_at),
                  'updated_at', public.notiflow_api_time_v1(c.updated_at))"""

CANCEL = f"""
CREATE FUNCTION notiflow_runs_cancel_v1(run_ids uuid[], actor text, reason text, announced jsonb)
RETURNS TABLE (cancelled public.trigger_instance, deliveries bigint[])
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    changed public.trigger_instance[];
    written bigint[];
BEGIN
    -- 1. The runs, locked in id order whatever order they came in: two cancels never deadlock.
    PERFORM FROM public.trigger_instance t WHERE t.id = ANY (run_ids) ORDER BY t.id FOR UPDATE;

    -- 2. Each one not over, cancelled now with its status event; one that ended meanwhile is
    -- left as it is.
    WITH moved AS (
        UPDATE public.trigger_instance t
        SET status = 'cancelled', lease_until = NULL, completed_at = statement_timestamp(),
            updated_at = statement_timestamp()
        FROM public.trigger_instance prior
        WHERE t.id = ANY (run_ids) AND prior.id = t.id
          AND t.status NOT IN ('completed', 'failed', 'cancelled')
        RETURNING t AS run, prior.status AS from_status
    ), logged AS (
        INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor,
                                          node_id)
        SELECT (m.run).id, m.from_status, 'cancelled', reason, actor, (m.run).current_node_id
        FROM moved m
        ORDER BY (m.run).id
    )
    SELECT array_agg(m.run ORDER BY (m.run).id) INTO changed FROM moved m;

    -- 3. Their events (docs/design/rules.md, rule 10), built by the caller from the runs as it
    -- locked them, each showing its run as the UPDATE left it; those of a run not cancelled
    -- are dropped.
    IF announced IS NOT NULL AND changed IS NOT NULL THEN
        SELECT jsonb_agg(jsonb_set(e, '{{data,trigger}}', (e #> '{{data,trigger}}') || {_SHOWN})
                         ORDER BY n)
        INTO announced
        FROM jsonb_array_elements(announced) WITH ORDINALITY AS a (e, n)
        JOIN unnest(changed) AS c ON c.id = (e ->> 'trigger_id')::uuid;
        IF announced IS NOT NULL THEN
            written := public.notiflow_outbox_write_v2(announced, '');
        END IF;
    END IF;

    RETURN QUERY SELECT c::public.trigger_instance, written FROM unnest(changed) AS c ORDER BY c.id;
END
$$;
COMMENT ON FUNCTION notiflow_runs_cancel_v1(uuid[], text, text, jsonb) IS
    'Cancels the runs not over (id order), with their events and trigger.cancelled. triggers/state.py';
"""

RETRY = """
CREATE FUNCTION notiflow_run_retry_v1(run_id uuid, actor text, reason text)
RETURNS TABLE (retried public.trigger_instance, route_queue text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
    -- A failed run not deleted, at the node that failed: back to `enqueued`, due now, its
    -- nudge recorded (the caller publishes it after commit), its retry budget whole again.
    UPDATE public.trigger_instance t
    SET status = 'enqueued', attempts = 0, available_at = statement_timestamp(),
        nudged_at = statement_timestamp(), completed_at = NULL, last_error = '',
        updated_at = statement_timestamp()
    WHERE t.id = run_id AND t.status = 'failed' AND t.deleted_at IS NULL
      AND t.current_node_id IS NOT NULL
    RETURNING t.* INTO retried;
    IF NOT FOUND THEN
        RETURN;  -- not there, not failed, or deleted: no row
    END IF;
    INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
    VALUES (run_id, 'failed', 'enqueued', reason, actor, retried.current_node_id);
    -- The route of its nudge (rule 11): its workflow's queue as it is now.
    SELECT w.queue INTO route_queue FROM public.workflows_workflow w
    WHERE w.id = retried.workflow_id;
    RETURN NEXT;
END
$$;
COMMENT ON FUNCTION notiflow_run_retry_v1(uuid, text, text) IS
    'Puts a failed run back to enqueued at its node, with its event; its route. triggers/state.py';
"""

REPLAY = """
CREATE FUNCTION notiflow_run_replay_v1(run_id uuid, key text, actor text, reason text)
RETURNS TABLE (replay_id uuid, route_queue text, route_priority smallint)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
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
$$;
COMMENT ON FUNCTION notiflow_run_replay_v1(uuid, text, text, text) IS
    'A new run of a run''s version, payload and recipient under a key, with its event. triggers/state.py';
"""

PRIVATE = """
REVOKE EXECUTE ON FUNCTION notiflow_runs_cancel_v1(uuid[], text, text, jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION notiflow_run_retry_v1(uuid, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION notiflow_run_replay_v1(uuid, text, text, text) FROM PUBLIC;
"""

DROP = """
DROP FUNCTION IF EXISTS notiflow_run_replay_v1(uuid, text, text, text);
DROP FUNCTION IF EXISTS notiflow_run_retry_v1(uuid, text, text);
DROP FUNCTION IF EXISTS notiflow_runs_cancel_v1(uuid[], text, text, jsonb);
"""


class Migration(migrations.Migration):
    dependencies = [("triggers", "0027_fanout_runs_insert_v2_tenant")]

    operations = [migrations.RunSQL(CANCEL + RETRY + REPLAY + PRIVATE, DROP)]
