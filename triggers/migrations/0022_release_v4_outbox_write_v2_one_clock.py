"""Version 4 of the run's release and version 2 of the outbox write (issue 45 §4, one clock),
beside the versions before them, which stay for the statements that workers of the previous
release have prepared until none is left running (docs/design/run.md, "Versioned by name"):

- `notiflow_outbox_write_v2` stamps the events' `time` and their deliveries' `available_at`,
  `nudged_at`, `created_at` and `updated_at` with `statement_timestamp()` (docs/design/rules.md, rule
  15), where version 1 (triggers migration 0013) read `now()`: the same instant in a release's
  one-statement transaction, not in a longer one (`events_record` inside a cancel or a report).
- `notiflow_release_v4` is version 3 (triggers migration 0019) calling the outbox write version 2.

Everything else is the versions before's, line for line (tests/snapshots/function_*.sql).
"""

from importlib import import_module

from django.db import migrations

# Made from the versions before's own text, so that only what changes is written here (a
# migration's text never changes once released).
_V1 = import_module("triggers.migrations.0013_claim_release_functions")
_V3 = import_module("triggers.migrations.0019_claim_release_v3_one_clock")

OUTBOX_WRITE = _V1.OUTBOX_WRITE.replace(
    "notiflow_outbox_write_v1", "notiflow_outbox_write_v2"
).replace("now()", "statement_timestamp()")
RELEASE = _V3.RELEASE.replace("notiflow_release_v3", "notiflow_release_v4").replace(
    "notiflow_outbox_write_v1", "notiflow_outbox_write_v2"
)

PRIVATE = """
REVOKE EXECUTE ON FUNCTION notiflow_release_v4(uuid, text, text, text, text, jsonb, integer,
                                               float8, boolean, text, boolean, text, jsonb,
                                               jsonb, jsonb, jsonb) FROM PUBLIC;
"""

DROP = """
DROP FUNCTION IF EXISTS notiflow_release_v4(uuid, text, text, text, text, jsonb, integer, float8,
                                            boolean, text, boolean, text, jsonb, jsonb, jsonb,
                                            jsonb);
DROP FUNCTION IF EXISTS notiflow_outbox_write_v2(jsonb, text);
"""


class Migration(migrations.Migration):
    dependencies = [("triggers", "0021_trigger_locale")]

    operations = [migrations.RunSQL(OUTBOX_WRITE + RELEASE + PRIVATE, DROP)]
