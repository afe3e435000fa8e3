from django.db import migrations, models


class Migration(migrations.Migration):
    # A constant default: PostgreSQL adds the column without a rewrite. Numbered 0016 for the
    # issue 36 work; it follows 0015 only to keep one line of migrations.

    dependencies = [
        ('triggers', '0015_claim_release_v2'),
    ]

    operations = [
        migrations.AddField(
            model_name='triggerinstance',
            name='trace_context',
            field=models.CharField(blank=True, db_default='', default='', max_length=55),
        ),
    ]
