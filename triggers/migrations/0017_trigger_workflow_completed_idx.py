"""A workflow's finished runs by the time they ended, for the charts of its admin page
(triggers/charts.py). Built concurrently: trigger_instance is the hot table, and a plain CREATE
INDEX would block every claim and release while it reads millions of rows (the operation:
common/migrations_ops.py)."""

from django.db import migrations, models

from common.migrations_ops import AddIndexConcurrentlyWhereItCan


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("triggers", "0016_trigger_trace_context")]

    operations = [
        AddIndexConcurrentlyWhereItCan(
            model_name="triggerinstance",
            index=models.Index(
                condition=models.Q(completed_at__isnull=False),
                fields=["workflow", "completed_at"],
                name="trigger_workflow_completed_idx",
            ),
        ),
    ]
