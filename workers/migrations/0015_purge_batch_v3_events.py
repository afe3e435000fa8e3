"""Retention's batches of finished runs, version 3 (issue 51 §4; docs/reliability/index.md,
"History by partition"): version 2's (workers migration 0014), but for the events of the runs
that lie in the run events' partitions the purge will drop after its batches (triggers migration
0030), which it leaves to the drop. Version 2 stays for the purge_logs of the release before.
"""

import importlib

from django.db import migrations

_STEP_LOG = importlib.import_module("workers.migrations.0014_step_log_partitioned")


def _once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# The events below `events_dropped_below` are left to the drop; the DEFAULT partition's (older
# than the first range partition) go row by row as before.
_V2 = _STEP_LOG.PURGE
_V2 = _V2[: _V2.index("CREATE FUNCTION notiflow_step_log_dropping_below")] + _V2[_V2.index("REVOKE ALL") :]
PURGE = _V2.replace("notiflow_purge_batch_v2", "notiflow_purge_batch_v3").replace(
    "timestamptz, integer, timestamptz)", "timestamptz, integer, timestamptz, timestamptz)"
)
PURGE = _once(
    PURGE,
    "                                        logs_dropped_below timestamptz)",
    "                                        logs_dropped_below timestamptz,\n"
    "                                        events_dropped_below timestamptz)",
)
PURGE = _once(
    PURGE,
    "    doomed uuid[];\n",
    "    doomed uuid[];\n"
    "    -- Where the range partitions begin: older events are the DEFAULT partition's.\n"
    "    events_from timestamptz :=\n"
    "        (SELECT min(r.lower_bound) FROM public.notiflow_trigger_event_ranges_v1() AS r);\n",
)
PURGE = _once(
    PURGE,
    "        DELETE FROM public.trigger_event e WHERE e.trigger_id = ANY (doomed);\n",
    "        DELETE FROM public.trigger_event e\n"
    "        WHERE e.trigger_id = ANY (doomed)\n"
    "          AND (events_dropped_below IS NULL OR e.created_at < events_from\n"
    "               OR e.created_at >= events_dropped_below);\n",
)
assert PURGE.count("(timestamptz, integer, timestamptz, timestamptz)") == 3, PURGE
PURGE_BEFORE = (
    "DROP FUNCTION IF EXISTS notiflow_purge_batch_v3(timestamptz, integer, timestamptz,"
    " timestamptz);"
)


class Migration(migrations.Migration):
    dependencies = [
        ("workers", "0014_step_log_partitioned"),
        ("triggers", "0030_trigger_event_partitioned"),
    ]

    operations = [migrations.RunSQL(PURGE, PURGE_BEFORE)]
