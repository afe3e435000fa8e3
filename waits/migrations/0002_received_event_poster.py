"""Who posted each event: the API key's id and the workflows it was limited to then (docs/security/findings.md,
"Posted events"). Two nullable columns without a default: PostgreSQL adds them to its catalog only,
without rewriting or scanning received_event, so the migration takes its lock for an instant
whatever the table's size; no index (nothing looks events up by poster). Events posted before it
have neither and reach every run's look-back (a backfill would rewrite the table); they leave with
the longest lookback (manage.py purge_events)."""

import django.contrib.postgres.fields
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('waits', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='receivedevent',
            name='api_key_id',
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='receivedevent',
            name='workflows',
            field=django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=100), blank=True, null=True, size=None),
        ),
    ]
