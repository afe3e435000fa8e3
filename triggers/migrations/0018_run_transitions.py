"""The run's status changes that event waits make, as the state machine's own functions (issue 45
§1): `waits` resolves its waits and calls these for what happens to the run, so that no package
but `triggers` names `trigger_instance` in SQL (tests/test_run_transitions.py) and statuses are
spelled here, once per version, as in the claim and the release.

- `notiflow_runs_hold_v1(run_ids, idle_only)` locks runs, in id order, before the caller touches
  what hangs on them (their waits: run row first, then wait row, everywhere, so nothing
  deadlocks). Every run of `run_ids`, waiting for a step that holds one; or, `idle_only`, only
  those no step works on (`waiting`, or ended), skipping one locked meanwhile. Also answers the
  ids of no run (`gone`: purged), whose waits may be closed.
- `notiflow_runs_resume_v1(resumed)` makes each run still `waiting` at its node due now, nudged
  now, with its status event (`resumed`: [{run_id, node_id, reason, actor}]); returns the route
  of each (its workflow's queue, its priority) for the nudges sent after commit.
- `notiflow_run_park_v1(run_id, at_node, wait_over, reason)`: after a wait_event step's
  release, in its transaction, the run `enqueued` at the node becomes `waiting`, with its
  status event; unless its wait is over already (`wait_over`), and then it is due now.
- `notiflow_run_ended_v1(run_id)`: whether the run is over (ended, or gone): what the waits'
  purge keeps a wait for. Plain SQL, inlined into its caller's plan.

The clock is `statement_timestamp()` (docs/design/rules.md, rule 15). SECURITY DEFINER with a fixed
search_path and every name qualified, EXECUTE revoked from PUBLIC and granted by
`setup_db_roles` to the worker (the step's park, the sweeper's timeouts) and the web process
(a posted event resumes its runs): neither writes `trigger_instance` for a wait on its own.
"""

from django.db import migrations

HOLD = """
CREATE FUNCTION notiflow_runs_hold_v1(run_ids uuid[], idle_only boolean)
RETURNS TABLE (held_id uuid, gone boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
    IF idle_only THEN
        -- Only runs that no step works on: one `enqueued` or `processing` is its step's to
        -- settle (the node reads its own wait), one locked meanwhile is left for the next call.
        RETURN QUERY
        SELECT t.id, false FROM public.trigger_instance t
        WHERE t.id = ANY (run_ids)
          AND t.status IN ('waiting', 'completed', 'failed', 'cancelled')
        ORDER BY t.id
        FOR UPDATE SKIP LOCKED;
    ELSE
        RETURN QUERY
        SELECT t.id, false FROM public.trigger_instance t
        WHERE t.id = ANY (run_ids)
        ORDER BY t.id
        FOR UPDATE;
    END IF;
    RETURN QUERY
    SELECT DISTINCT g.id, true FROM unnest(run_ids) AS g (id)
    WHERE NOT EXISTS (SELECT 1 FROM public.trigger_instance t WHERE t.id = g.id);
END
$$;
COMMENT ON FUNCTION notiflow_runs_hold_v1(uuid[], boolean) IS
    'Locks runs (id order) before what hangs on them; with the ids of no run. waits/sql.py';
"""

RESUME = """
CREATE FUNCTION notiflow_runs_resume_v1(resumed jsonb)
RETURNS TABLE (resumed_id uuid, route_queue text, route_priority smallint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
    RETURN QUERY
    WITH wanted AS (
        SELECT DISTINCT ON (r.run_id) r.run_id, r.node_id, r.reason, r.actor
        FROM jsonb_to_recordset(resumed) AS r (run_id uuid, node_id text, reason text, actor text)
        ORDER BY r.run_id
    ),
    moved AS (
        UPDATE public.trigger_instance t
        SET status = 'enqueued', available_at = statement_timestamp(),
            nudged_at = statement_timestamp(), updated_at = statement_timestamp()
        FROM wanted
        WHERE t.id = wanted.run_id AND t.status = 'waiting'
          AND t.current_node_id = wanted.node_id
        RETURNING t.id, t.workflow_id, t.priority, t.current_node_id, wanted.reason, wanted.actor
    ),
    logged AS (
        INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor,
                                          node_id)
        SELECT m.id, 'waiting', 'enqueued', m.reason, m.actor, m.current_node_id FROM moved m
    )
    SELECT m.id, w.queue::text, m.priority::smallint
    FROM moved m JOIN public.workflows_workflow w ON w.id = m.workflow_id;
END
$$;
COMMENT ON FUNCTION notiflow_runs_resume_v1(jsonb) IS
    'Makes runs waiting at a node due now, with their events; their routes. waits/sql.py';
"""

PARK = """
CREATE FUNCTION notiflow_run_park_v1(run_id uuid, at_node text, wait_over boolean, reason text)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    parked text;
BEGIN
    UPDATE public.trigger_instance t
    SET status = CASE WHEN wait_over THEN 'enqueued' ELSE 'waiting' END,
        available_at = CASE WHEN wait_over THEN statement_timestamp() ELSE t.available_at END,
        nudged_at = CASE WHEN wait_over THEN NULL ELSE t.nudged_at END,
        updated_at = statement_timestamp()
    WHERE t.id = run_id AND t.status = 'enqueued' AND t.current_node_id = at_node
    RETURNING t.status INTO parked;
    IF parked = 'waiting' THEN
        INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor,
                                          node_id)
        VALUES (run_id, 'enqueued', 'waiting', reason, 'engine', at_node);
    END IF;
    RETURN parked;
END
$$;
COMMENT ON FUNCTION notiflow_run_park_v1(uuid, text, boolean, text) IS
    'Leaves a run released at a wait waiting (or due now, its wait over). waits/sql.py';
"""

ENDED = """
CREATE FUNCTION notiflow_run_ended_v1(run_id uuid) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT NOT EXISTS (
          SELECT 1 FROM public.trigger_instance t
          WHERE t.id = run_id AND t.status NOT IN ('completed', 'failed', 'cancelled')) $$;
COMMENT ON FUNCTION notiflow_run_ended_v1(uuid) IS
    'The run ended, or is gone. waits/sql.py';
"""

PRIVATE = """
REVOKE EXECUTE ON FUNCTION notiflow_runs_hold_v1(uuid[], boolean) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION notiflow_runs_resume_v1(jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION notiflow_run_park_v1(uuid, text, boolean, text) FROM PUBLIC;
"""

DROP = """
DROP FUNCTION IF EXISTS notiflow_run_ended_v1(uuid);
DROP FUNCTION IF EXISTS notiflow_run_park_v1(uuid, text, boolean, text);
DROP FUNCTION IF EXISTS notiflow_runs_resume_v1(jsonb);
DROP FUNCTION IF EXISTS notiflow_runs_hold_v1(uuid[], boolean);
"""


class Migration(migrations.Migration):
    dependencies = [("triggers", "0017_trigger_workflow_completed_idx")]

    operations = [migrations.RunSQL(HOLD + RESUME + PARK + ENDED + PRIVATE, DROP)]
