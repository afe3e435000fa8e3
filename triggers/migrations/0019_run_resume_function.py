"""A run `waiting` at a node made due now, with its status event: `notiflow_run_resume_v1`, the
triggers app's one statement of that change of status, which the waits' timeout calls
(waits/sql.py WAIT_TIME_OUT_SQL) rather than writing trigger_instance itself.

It runs as its caller (the worker role holds UPDATE on trigger_instance and INSERT on
trigger_event) and answers the resumed run's id and its next nudge's route (its workflow's queue
as it is now, its priority), or no row when the run is not `waiting` at that node. Versioned by
name like the claim and the release; statuses are spelled here, once per version."""

from django.db import migrations

RESUME = """
CREATE FUNCTION notiflow_run_resume_v1(
    run_id uuid, at_node text, resume_reason text, resume_actor text
) RETURNS TABLE (resumed_id uuid, route_queue text, route_priority integer)
LANGUAGE sql SET search_path = pg_catalog, public AS $$
    WITH resumed AS (
        UPDATE public.trigger_instance t
        SET status = 'enqueued', available_at = now(), nudged_at = now(), updated_at = now()
        WHERE t.id = run_id AND t.status = 'waiting' AND t.current_node_id = at_node
        RETURNING t.id, t.workflow_id, t.priority, t.current_node_id
    ), logged AS (
        INSERT INTO public.trigger_event (trigger_id, from_status, to_status, reason, actor,
                                          node_id)
        SELECT resumed.id, 'waiting', 'enqueued', resume_reason, resume_actor,
               resumed.current_node_id
        FROM resumed
    )
    SELECT resumed.id, w.queue::text, resumed.priority::integer
    FROM resumed JOIN public.workflows_workflow w ON w.id = resumed.workflow_id
$$;
COMMENT ON FUNCTION notiflow_run_resume_v1(uuid, text, text, text) IS
    'A run waiting at the node made due now, with its status event; its route. waits/sql.py';
"""

DROP = "DROP FUNCTION IF EXISTS notiflow_run_resume_v1(uuid, text, text, text);"


class Migration(migrations.Migration):
    dependencies = [("triggers", "0018_drop_claim_release_v1")]

    operations = [migrations.RunSQL(RESUME, DROP)]
