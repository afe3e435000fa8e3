from django.db import migrations, models


class Migration(migrations.Migration):
    # A trigger's `locale` (docs/translations.md). A constant default: PostgreSQL adds the column
    # without a rewrite.

    dependencies = [
        ('triggers', '0020_drop_claim_release_v1'),
    ]

    operations = [
        migrations.AddField(
            model_name='triggerinstance',
            name='locale',
            field=models.CharField(blank=True, db_default='', default='', max_length=35),
        ),
    ]
