"""A fan-out may be cancelled (POST /api/fanouts/<id>/cancel/): one more choice of `status`, no change
in the database (Django keeps choices in its state only)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('recipients', '0002_preferences'),
    ]

    operations = [
        migrations.AlterField(
            model_name='fanout',
            name='status',
            field=models.CharField(choices=[('running', 'Running'), ('done', 'Done'), ('failed', 'Failed'), ('cancelled', 'Cancelled')], default='running', max_length=16),
        ),
    ]
