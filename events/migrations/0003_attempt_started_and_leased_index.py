"""Issue 31: every attempt that began is on record, and an endpoint's deliveries in flight are
counted cheaply.

- `webhook_attempt.state`: an attempt is written `started` before its POST, in a transaction of
  its own, and becomes `finished` with its outcome afterwards (or, when its worker died, when
  its lease expires and the delivery is claimed again). The append-only guard allows that one
  change and no other: from `started` to `finished`, the attempt's identity unchanged. Rows
  written before this migration were finished.
- `webhook_delivery_leased_idx`: the deliveries holding a lease, by endpoint, for the claim's
  bound on an endpoint's deliveries in flight (NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY).
"""

import django.db.models
from django.db import migrations, models

GUARD = """
DROP TRIGGER IF EXISTS webhook_attempt_append_only ON webhook_attempt;
CREATE TRIGGER webhook_attempt_append_only BEFORE UPDATE OR DELETE ON webhook_attempt
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only(
        'state', 'started', 'finished',
        'id,delivery_id,endpoint_id,event_id,event_type,attempt,created_at');
"""
GUARD_BEFORE = """
DROP TRIGGER IF EXISTS webhook_attempt_append_only ON webhook_attempt;
CREATE TRIGGER webhook_attempt_append_only BEFORE UPDATE OR DELETE ON webhook_attempt
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("events", "0002_append_only_and_purge")]

    operations = [
        # Existing rows are finished attempts (ADD COLUMN with a default rewrites no row, so the
        # guard is not asked); new ones start as `started`.
        migrations.AddField(
            model_name="webhookattempt",
            name="state",
            field=models.CharField(
                choices=[("started", "Started"), ("finished", "Finished")],
                default="finished",
                max_length=16,
            ),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="webhookattempt",
            name="state",
            field=models.CharField(
                choices=[("started", "Started"), ("finished", "Finished")],
                default="started",
                max_length=16,
            ),
        ),
        migrations.RunSQL(GUARD, GUARD_BEFORE),
        migrations.AddIndex(
            model_name="webhookdelivery",
            index=models.Index(
                condition=django.db.models.Q(("lease_until__isnull", False)),
                fields=["endpoint"],
                name="webhook_delivery_leased_idx",
            ),
        ),
    ]
