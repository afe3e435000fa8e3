"""Drop the single-column indexes Django made for two foreign keys that composite indexes already
lead with (trigger_event.trigger_id: trigger_event_trigger_idx; trigger_instance.workflow_id:
trigger_workflow_idempotency_key and trigger_workflow_created_idx). Every claim and release of a
step rewrote an entry in each of them (BENCHMARKS.md).

Only the indexes go: Django's own AlterField would also drop and re-add the foreign keys,
re-checking every row of the tables under lock.
"""

import django.db.models.deletion
from django.db import migrations, models

DROP = """
DROP INDEX IF EXISTS trigger_event_trigger_id_fdcec258;
DROP INDEX IF EXISTS trigger_instance_workflow_id_828b8974;
"""
RESTORE = """
CREATE INDEX IF NOT EXISTS trigger_event_trigger_id_fdcec258 ON trigger_event (trigger_id);
CREATE INDEX IF NOT EXISTS trigger_instance_workflow_id_828b8974 ON trigger_instance (workflow_id);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("triggers", "0003_event_created_at_db_clock"),
        ("workflows", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(DROP, RESTORE)],
            state_operations=[
                migrations.AlterField(
                    model_name="triggerevent",
                    name="trigger",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="events",
                        to="triggers.triggerinstance",
                    ),
                ),
                migrations.AlterField(
                    model_name="triggerinstance",
                    name="workflow",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="triggers",
                        to="workflows.workflow",
                    ),
                ),
            ],
        ),
    ]
