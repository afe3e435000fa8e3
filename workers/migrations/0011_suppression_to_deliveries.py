"""The suppression list belongs to the deliveries app now (deliveries 0004): this app forgets the
model; its table `suppression` stays, untouched, under deliveries.Suppression."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("deliveries", "0004_suppression_from_workers"),
        ("workers", "0010_purge_choice_functions"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="Suppression")],
            database_operations=[],
        ),
    ]
