"""The registry's one rule in SQL, "a live worker serves this queue": `notiflow_queue_served_v1`.

Live means registered, not stopped, and seen within `live_within` seconds (three heartbeats:
registry/sql.py live_within_seconds) on the database's clock (docs/design/rules.md, rule 15). Every
statement that needs the rule calls this function (intake's statements, the fan-out's chunk):
none writes it out.

A set-returning LANGUAGE sql STABLE function of one row, neither STRICT nor SECURITY DEFINER,
with no SET: PostgreSQL inlines it, as a subquery, into each statement that calls it in its FROM
list (`CROSS JOIN LATERAL notiflow_queue_served_v1(w.queue, ...) AS s (served)`), so intake's
plan is that of the EXISTS written in place (tests/registry/test_registry.py checks it). A
scalar function would not be inlined (its body holds a subquery) and would run on its own per
row. The table has a row per worker, so the check is a scan of a handful of rows. Versioned by
its name: a changed rule is a new function, and statements prepared against this one keep
working until they are replanned.
"""

from django.db import migrations

CREATE = """
CREATE FUNCTION notiflow_queue_served_v1(served_queue text, live_within float8)
RETURNS TABLE (served boolean) LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT EXISTS (
    SELECT 1 FROM public.worker wk
    WHERE wk.stopped_at IS NULL
      AND wk.last_seen_at > statement_timestamp() - live_within * interval '1 second'
      AND served_queue = ANY (wk.queues))
$$;
COMMENT ON FUNCTION notiflow_queue_served_v1(text, float8) IS
    'A live worker (seen within live_within seconds) consumes from the queue. registry/sql.py';
"""
DROP = "DROP FUNCTION IF EXISTS notiflow_queue_served_v1(text, float8);"


class Migration(migrations.Migration):
    dependencies = [("registry", "0001_initial")]

    operations = [migrations.RunSQL(CREATE, DROP)]
