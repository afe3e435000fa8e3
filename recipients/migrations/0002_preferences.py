"""The `marketing` category: a marketing workflow that names no preference category is in it
(workflows.definition.preference_category_of), and a one-click unsubscribe turns its email off
for a run's recipient; it must exist for preferences to name it."""

from django.db import migrations


def marketing_category_create(apps, schema_editor):
    Category = apps.get_model("recipients", "Category")
    Category.objects.get_or_create(
        slug="marketing",
        defaults={
            "name": "Marketing",
            "description": "News and offers: the marketing workflows that name no other category.",
        },
    )


class Migration(migrations.Migration):
    dependencies = [("recipients", "0001_initial")]

    operations = [
        migrations.RunPython(marketing_category_create, migrations.RunPython.noop, elidable=False),
    ]
