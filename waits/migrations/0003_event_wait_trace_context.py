from django.db import migrations, models


class Migration(migrations.Migration):
    # A constant default: PostgreSQL adds the column without a rewrite.

    dependencies = [
        ('waits', '0002_received_event_poster'),
    ]

    operations = [
        migrations.AddField(
            model_name='eventwait',
            name='trace_context',
            field=models.CharField(blank=True, db_default='', default='', max_length=55),
        ),
    ]
