from django.db import migrations, models


class Migration(migrations.Migration):
    # A constant default: PostgreSQL adds the column without a rewrite. Numbered 0016 for the
    # issue 36 work (0014 and 0015 are its siblings' numbers); it needs only 0013.

    dependencies = [
        ('triggers', '0013_claim_release_functions'),
    ]

    operations = [
        migrations.AddField(
            model_name='triggerinstance',
            name='trace_context',
            field=models.CharField(blank=True, db_default='', default='', max_length=55),
        ),
    ]
