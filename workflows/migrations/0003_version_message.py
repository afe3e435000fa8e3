"""A workflow version's message: the note its author gave with the change (the CLI's `--message`,
such as a commit sha), beside `created_by`, the key or user that made it. Existing versions have
none; `db_default` keeps inserts of code from before this migration valid."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("workflows", "0002_queue_priority_dotted_keys"),
    ]

    operations = [
        migrations.AddField(
            model_name="workflowversion",
            name="message",
            field=models.CharField(blank=True, db_default="", default="", max_length=500),
        ),
    ]
