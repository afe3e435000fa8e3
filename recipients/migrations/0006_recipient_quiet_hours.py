from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("recipients", "0005_fanout_trace_context"),
    ]

    operations = [
        migrations.AddField(
            model_name="recipient",
            name="quiet_hours",
            field=models.JSONField(blank=True, db_default={}, default=dict),
        ),
    ]
