"""Version 2 of a fan-out chunk's insert (docs/tenants.md): `notiflow_fanout_runs_insert_v2` is
version 1 (triggers migration 0023) taking the fan-out's `tenant` too, stored on each run.
Version 1 stays for the workers of the release before until none is left running
(docs/design/run.md, "Versioned by name"). Everything else is version 1's, line for line
(tests/snapshots/function_*.sql).
"""

from importlib import import_module

from django.db import migrations

# Made from version 1's own text, so that only what changes is written here (a migration's text
# never changes once released).
_V1 = import_module("triggers.migrations.0023_fanout_runs_insert_function")


def _changed(text: str, old: str, new: str) -> str:
    assert old in text, old  # version 1's text is fixed: a miss is a mistake here
    return text.replace(old, new)


CREATE = _V1.CREATE.replace("notiflow_fanout_runs_insert_v1", "notiflow_fanout_runs_insert_v2")
CREATE = _changed(
    CREATE, "actor text, require_worker boolean, live_within float8)",
    "actor text, require_worker boolean, live_within float8, tenant text)",
)
CREATE = _changed(
    CREATE, "payload, recipient, locale, status,", "payload, recipient, locale, tenant, status,"
)
CREATE = _changed(
    CREATE,
    "COALESCE(r.recipient, ''), '', 'enqueued',",
    "COALESCE(r.recipient, ''), '', COALESCE(notiflow_fanout_runs_insert_v2.tenant, ''), 'enqueued',",
)
CREATE = CREATE.replace("boolean, float8) IS", "boolean, float8, text) IS")
CREATE = _changed(CREATE, "boolean, float8) FROM PUBLIC", "boolean, float8, text) FROM PUBLIC")
DROP = """
DROP FUNCTION IF EXISTS notiflow_fanout_runs_insert_v2(text, json, text, integer, text, text,
                                                       boolean, float8, text);
"""


class Migration(migrations.Migration):
    dependencies = [("triggers", "0026_trigger_tenant")]

    operations = [migrations.RunSQL(CREATE, DROP)]
