"""The send ledger keeps the provider of every attempt that reached one (docs/design/channels.md, "Providers")."""

import django.contrib.postgres.fields
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('workers', '0007_ledger_provider_suppression'),
    ]

    operations = [
        migrations.AddField(
            model_name='sendledger',
            name='providers',
            field=django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=50), blank=True, db_default=[], size=None),
        ),
    ]
