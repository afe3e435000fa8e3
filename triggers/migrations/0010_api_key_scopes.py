"""API keys get a scope, a workflow limit and an expiry (docs/operations/upgrades.md,
"Upgrading to scoped API keys and rate limits").

Keys that exist were all-powerful: they become `admin`, so that they keep working as before.
Keys made afterwards are `trigger` unless asked otherwise (the model's default).
"""

import django.contrib.postgres.fields
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("triggers", "0009_trigger_request_hash_cancellation_key"),
    ]

    operations = [
        # The column is added with `admin` for the rows already there ...
        migrations.AddField(
            model_name="apikey",
            name="scope",
            field=models.CharField(
                choices=[("trigger", "Trigger"), ("admin", "Admin")],
                default="admin",
                max_length=10,
            ),
            preserve_default=False,
        ),
        # ... and new keys default to `trigger` (a Python default: no database default remains).
        migrations.AlterField(
            model_name="apikey",
            name="scope",
            field=models.CharField(
                choices=[("trigger", "Trigger"), ("admin", "Admin")],
                default="trigger",
                max_length=10,
            ),
        ),
        migrations.AddField(
            model_name="apikey",
            name="workflows",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.CharField(max_length=100), blank=True, default=list, size=None
            ),
        ),
        migrations.AddField(
            model_name="apikey",
            name="expires_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
