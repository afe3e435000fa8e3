"""The suppression list moves from the workers app to this one (issue 32 §5): deliveries owns it,
the engine only reads it. The table `suppression` stays as it is: only Django's state moves (the
workers app forgets the model in its 0011), so no row is copied. Its content type moves along,
which keeps the admin's permissions and log entries on suppressions pointing at them."""

from django.db import migrations, models


def content_type_move(apps, schema_editor, source="workers", target="deliveries"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    if not ContentType.objects.filter(app_label=target, model="suppression").exists():
        ContentType.objects.filter(app_label=source, model="suppression").update(app_label=target)


def content_type_back(apps, schema_editor):
    content_type_move(apps, schema_editor, source="deliveries", target="workers")


class Migration(migrations.Migration):

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("deliveries", "0003_unmatched_report"),
        ("workers", "0010_purge_choice_functions"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Suppression",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("channel", models.CharField(max_length=16)),
                        ("recipient", models.CharField(max_length=320)),
                        ("scope", models.CharField(choices=[("all", "All"), ("marketing", "Marketing")], default="all", max_length=16)),
                        ("reason", models.CharField(choices=[("bounced", "Bounced"), ("complained", "Complained"), ("unsubscribed", "Unsubscribed"), ("manual", "Manual")], max_length=16)),
                        ("source", models.CharField(blank=True, max_length=200)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        "db_table": "suppression",
                        "ordering": ["-created_at", "-id"],
                        "constraints": [
                            models.UniqueConstraint(fields=("channel", "recipient", "scope"), name="suppression_once"),
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_type_move, content_type_back),
    ]
