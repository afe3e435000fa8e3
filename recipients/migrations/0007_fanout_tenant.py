# A fan-out's `tenant` (docs/tenants.md), given to each of its runs. A constant default:
# PostgreSQL adds the column without a rewrite.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('recipients', '0006_recipient_quiet_hours'),
    ]

    operations = [
        migrations.AddField(
            model_name='fanout',
            name='tenant',
            field=models.CharField(blank=True, db_default='', default='', max_length=64),
        ),
    ]
