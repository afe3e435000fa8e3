"""Version 2 of a webhook delivery's claim (issue 45 §4, one clock): an attempt a dead worker
left `started` is finished with its duration counted to `statement_timestamp()` (docs/design/rules.md,
rule 15), where version 1 (events migration 0004) read `clock_timestamp()`. The attempt began in
an earlier statement, so the claim's own statement time measures it; nothing is measured inside
one statement. Version 1 stays for the statements that workers of the previous release have
prepared until none is left running (docs/design/run.md, "Versioned by name").
"""

from importlib import import_module

from django.db import migrations

# Version 1's own text with what changes (a migration's text never changes once released).
_V1 = import_module("events.migrations.0004_delivery_claim_and_finish_functions")
CLAIM = _V1.CLAIM.replace("notiflow_delivery_claim_v1", "notiflow_delivery_claim_v2").replace(
    "clock_timestamp()", "statement_timestamp()"
)

DROP = """
DROP FUNCTION IF EXISTS notiflow_delivery_claim_v2(
    bigint, text, double precision, integer, integer, double precision, boolean, integer);
"""


class Migration(migrations.Migration):
    dependencies = [("events", "0005_event_purgeable_function")]

    operations = [migrations.RunSQL(CLAIM, DROP)]
