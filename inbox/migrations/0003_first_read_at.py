"""`first_read_at`: when a message was first read, which marking it unread leaves (inbox.models).
The engagement funnel counts an in-app message `opened` when it is set (deliveries migration
0007). Messages read before it existed take their current `read_at`."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("inbox", "0002_token_generation"),
    ]

    operations = [
        migrations.AddField(
            model_name="inboxmessage",
            name="first_read_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.RunSQL(
            "UPDATE inbox_message SET first_read_at = read_at WHERE read_at IS NOT NULL",
            migrations.RunSQL.noop,
        ),
    ]
