"""API key names become unique. Keys created before may share a name (`make run` creates
"make-run" whenever .run/api-key is gone): the oldest keeps it, each later one is renamed
"<name> #<id>" so that the constraint can be added. No key stops working.
"""

from django.db import migrations, models
from django.db.models import Count


def rename_duplicates(apps, schema_editor):
    ApiKey = apps.get_model("triggers", "ApiKey")
    shared = ApiKey.objects.values("name").annotate(n=Count("id")).filter(n__gt=1)
    for name in shared.values_list("name", flat=True):
        for key in ApiKey.objects.filter(name=name).order_by("id")[1:]:
            suffix = f" #{key.pk}"
            key.name = name[: 100 - len(suffix)] + suffix
            key.save(update_fields=["name"])


class Migration(migrations.Migration):
    dependencies = [
        ("triggers", "0004_redundant_indexes"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="apikey",
            options={"ordering": ["name"], "verbose_name": "API key"},
        ),
        migrations.RunPython(rename_duplicates, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="apikey",
            constraint=models.UniqueConstraint(fields=("name",), name="api_key_name_unique"),
        ),
    ]
