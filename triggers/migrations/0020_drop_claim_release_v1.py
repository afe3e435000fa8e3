"""Version 1 of the run's claim and release (migration 0013) goes: nothing of this release calls
it, and the workers of the release before 0015, whose prepared statements named it, are gone
once a deploy of 0015 finished (docs/design/run.md, "The claim and the release": an old version
stays until a later migration drops it). The outbox write and its subscription rule, created
with it in 0013, stay: version 2 calls them.

Reversed, version 1 comes back as 0013 wrote it."""

from importlib import import_module

from django.db import migrations

_V1 = import_module("triggers.migrations.0013_claim_release_functions")

DROP = """
DROP FUNCTION notiflow_release_v1(uuid, text, text, text, text, jsonb, integer, timestamptz,
                                  boolean, text, boolean, text, jsonb, jsonb, jsonb);
DROP FUNCTION notiflow_claim_v1(uuid, text, float8, text[]);
"""


class Migration(migrations.Migration):
    dependencies = [("triggers", "0019_claim_release_v3_one_clock")]

    operations = [migrations.RunSQL(DROP, _V1.CLAIM + _V1.RELEASE + _V1.PRIVATE)]
