"""Queues and priorities (docs/design/rules.md, rule 11), and dotted workflow keys. Existing workflows
get the queue their key implies (keys were slugs, so `default`) and the default priority."""

import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("workflows", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="workflow",
            name="priority",
            field=models.PositiveSmallIntegerField(
                db_default=5,
                default=5,
                validators=[django.core.validators.MaxValueValidator(9)],
            ),
        ),
        migrations.AddField(
            model_name="workflow",
            name="queue",
            field=models.CharField(
                blank=True,
                max_length=100,
                validators=[
                    django.core.validators.RegexValidator(
                        "^[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)*$",
                        "a queue name has letters, digits, '_' and '-', in segments separated by single dots",
                    )
                ],
            ),
        ),
        migrations.AlterField(
            model_name="workflow",
            name="key",
            field=models.CharField(
                max_length=100,
                unique=True,
                validators=[
                    django.core.validators.RegexValidator(
                        "^[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)*$",
                        "a workflow key has letters, digits, '_' and '-', in segments separated by single dots",
                    )
                ],
            ),
        ),
        migrations.AddConstraint(
            model_name="workflow",
            constraint=models.CheckConstraint(
                condition=models.Q(("priority__gte", 0), ("priority__lte", 9)),
                name="workflow_priority_range",
            ),
        ),
        # Existing rows: the queue workflows.routing.default_queue gives their key.
        migrations.RunSQL(
            "UPDATE workflows_workflow SET queue = CASE WHEN strpos(key, '.') > 0 "
            "THEN split_part(key, '.', 1) ELSE 'default' END WHERE queue = ''",
            migrations.RunSQL.noop,
        ),
    ]
