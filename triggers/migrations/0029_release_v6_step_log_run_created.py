"""Version 6 of the run's release (issue 51 §4): the step log it writes carries its run's
`created_at` as `run_created_at`, the step log's partition key (workers migration 0014), read
back by the release's own UPDATE; and the attempt number it counts from the step logs before
reads the run's partition and the old table's rows only, where version 5 (triggers migration
0024) reads every partition.

Everything else is version 5's, line for line (tests/snapshots/function_*.sql). Version 5 stays
for the statements that workers of the previous release have prepared (docs/design/run.md,
"Versioned by name"): the step logs it writes have no `run_created_at` and go to the step log's
DEFAULT partition, which retention empties row by row.
"""

from importlib import import_module

from django.db import migrations

_V5 = import_module("triggers.migrations.0024_release_v5_events_from_the_released_row")

RELEASE = _V5.RELEASE.replace("notiflow_release_v5", "notiflow_release_v6")
RELEASE = _V5._once(
    RELEASE,
    "    released_run jsonb;  -- what the UPDATE set, as the API shows it (events only)\n",
    "    released_run jsonb;  -- what the UPDATE set, as the API shows it (events only)\n"
    "    run_created timestamptz;  -- the step log's partition key\n",
)
RELEASE = _V5._once(
    RELEASE,
    "    RETURNING t.workflow_id, t.priority,\n",
    "    RETURNING t.workflow_id, t.priority, t.created_at,\n",
)
RELEASE = _V5._once(
    RELEASE,
    "    INTO workflow, route_priority, released_run;\n",
    "    INTO workflow, route_priority, run_created, released_run;\n",
)
RELEASE = _V5._once(
    RELEASE,
    "        INSERT INTO public.step_log (trigger_id, workflow_id, node_id, node_type, attempt,\n"
    "                                     started_at, finished_at, input, output, success, error)\n"
    "        SELECT run_id, workflow, step_node, step_log ->> 'node_type',\n",
    "        INSERT INTO public.step_log (trigger_id, workflow_id, node_id, node_type, attempt,\n"
    "                                     started_at, finished_at, input, output, success, error,\n"
    "                                     run_created_at)\n"
    "        SELECT run_id, workflow, step_node, step_log ->> 'node_type',\n",
)
RELEASE = _V5._once(
    RELEASE,
    "                             WHERE s.trigger_id = run_id AND s.node_id = step_node), 0),\n",
    "                             WHERE s.trigger_id = run_id AND s.node_id = step_node\n"
    "                               AND (s.run_created_at = run_created\n"
    "                                    OR s.run_created_at IS NULL)), 0),\n",
)
RELEASE = _V5._once(
    RELEASE,
    "               step_log ->> 'error' = '', step_log ->> 'error';\n",
    "               step_log ->> 'error' = '', step_log ->> 'error', run_created;\n",
)

PRIVATE = _V5.PRIVATE.replace("notiflow_release_v5", "notiflow_release_v6")
DROP = _V5.DROP.replace("notiflow_release_v5", "notiflow_release_v6").replace(
    "DROP FUNCTION IF EXISTS notiflow_api_time_v1(timestamptz);\n", ""
)


class Migration(migrations.Migration):
    dependencies = [
        ("triggers", "0028_cancel_retry_replay_functions"),
        ("workers", "0014_step_log_partitioned"),
    ]

    operations = [migrations.RunSQL(RELEASE + PRIVATE, DROP)]
