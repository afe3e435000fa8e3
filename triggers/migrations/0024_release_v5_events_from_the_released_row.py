"""Version 5 of the run's release (issue 45 §3: "a rule two places need is one SQL function"):
the events it writes show the run as its own UPDATE left it, read from that row, where version 4
(triggers migration 0022) wrote them as the worker built them, the run as released computed in
Python beforehand (`triggers.steps.released_copy`, a mirror of the SET clause, now gone).

- The worker builds the events of the release from the run as claimed; `notiflow_release_v5`
  overlays each one's `data.trigger` with the columns its UPDATE set, read back by its RETURNING
  and shown as the API shows them (`triggers/representation.py`: `cursor`, times by
  `notiflow_api_time_v1`), and a retry's `data.step.retry_at` with the run's new
  `available_at`. So an event's clocks are the row's own (the database's, rule 15), not the
  step's reading a moment before, and nothing but the SET clause says what a release sets.
  The events labelled 'without-release' (a send whose release could not apply) keep the run as
  the step found it, as before.
- `notiflow_api_time_v1(at)` writes a time as the API does (DRF's DateTimeField, in UTC: ISO
  8601 with `Z`, the microseconds only when there are some); tests/test_rule_homes.py holds it
  equal to `triggers.representation`'s.

Everything else is version 4's, line for line (tests/snapshots/function_*.sql); version 4 stays
for the statements that workers of the previous release have prepared (docs/design/run.md,
"Versioned by name").
"""

from importlib import import_module

from django.db import migrations

_V4 = import_module("triggers.migrations.0022_release_v4_outbox_write_v2_one_clock")


def _once(text: str, old: str, new: str) -> str:
    """`text` with `old`, which it holds exactly once, replaced by `new`."""
    assert text.count(old) == 1, old
    return text.replace(old, new)


API_TIME = """
CREATE FUNCTION notiflow_api_time_v1(at timestamptz) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
           || CASE WHEN extract(microseconds FROM at)::bigint % 1000000 = 0 THEN ''
                   ELSE to_char(at AT TIME ZONE 'UTC', '.US') END
           || 'Z'
$$;
COMMENT ON FUNCTION notiflow_api_time_v1(timestamptz) IS
    'A time as the API writes it (UTC, ISO 8601, Z). triggers/representation.py';
"""

RELEASE = _V4.RELEASE.replace("notiflow_release_v4", "notiflow_release_v5")
RELEASE = _once(
    RELEASE,
    "    send_recorded boolean := false;\n",
    "    send_recorded boolean := false;\n"
    "    released_run jsonb;  -- what the UPDATE set, as the API shows it (events only)\n",
)
RELEASE = _once(
    RELEASE,
    "    RETURNING t.workflow_id, t.priority INTO workflow, route_priority;\n",
    """\
    RETURNING t.workflow_id, t.priority,
              CASE WHEN announced IS NOT NULL THEN jsonb_build_object(
                  'status', t.status,
                  'cursor', CASE WHEN t.current_node_id IS NOT NULL
                                 THEN jsonb_build_object('current_node_id', t.current_node_id) END,
                  'vars', t.vars,
                  'attempts', t.attempts,
                  'available_at', public.notiflow_api_time_v1(t.available_at),
                  'lease_until', public.notiflow_api_time_v1(t.lease_until),
                  'leased_by', t.leased_by,
                  'last_error', t.last_error,
                  'completed_at', public.notiflow_api_time_v1(t.completed_at),
                  'updated_at', public.notiflow_api_time_v1(t.updated_at)) END
    INTO workflow, route_priority, released_run;
""",
)
RELEASE = _once(
    RELEASE,
    "            deliveries := public.notiflow_outbox_write_v2(announced, '');\n",
    """\
            -- They show the run as the UPDATE left it (its `data.trigger` overlaid with what it
            -- set; a retry's `retry_at` is its new due time): built by the worker from the run
            -- as claimed, they say nothing of what a release sets.
            SELECT jsonb_agg(CASE WHEN e ->> 'gate' <> '' THEN e
                                  WHEN e #> '{data,step}' ? 'retry_at'
                                  THEN jsonb_set(jsonb_set(e, '{data,trigger}',
                                                           (e #> '{data,trigger}') || released_run),
                                                 '{data,step,retry_at}',
                                                 released_run -> 'available_at')
                                  ELSE jsonb_set(e, '{data,trigger}',
                                                 (e #> '{data,trigger}') || released_run) END
                             ORDER BY n)
            INTO announced
            FROM jsonb_array_elements(announced) WITH ORDINALITY AS a (e, n);
            deliveries := public.notiflow_outbox_write_v2(announced, '');
""",
)

PRIVATE = """
REVOKE EXECUTE ON FUNCTION notiflow_release_v5(uuid, text, text, text, text, jsonb, integer,
                                               float8, boolean, text, boolean, text, jsonb,
                                               jsonb, jsonb, jsonb) FROM PUBLIC;
"""

DROP = """
DROP FUNCTION IF EXISTS notiflow_release_v5(uuid, text, text, text, text, jsonb, integer, float8,
                                            boolean, text, boolean, text, jsonb, jsonb, jsonb,
                                            jsonb);
DROP FUNCTION IF EXISTS notiflow_api_time_v1(timestamptz);
"""


class Migration(migrations.Migration):
    dependencies = [("triggers", "0023_fanout_runs_insert_function")]

    operations = [migrations.RunSQL(API_TIME + RELEASE + PRIVATE, DROP)]
