from django.db import migrations, models


class Migration(migrations.Migration):
    # A run's `tenant` (docs/tenants.md). A constant default: PostgreSQL adds the column without
    # a rewrite. The index is partial (rows with a tenant: none yet), so building it is one scan
    # of the table under a write lock, as trigger_recipient_created_idx was (triggers 0012).

    dependencies = [
        ('triggers', '0025_trigger_action'),
    ]

    operations = [
        migrations.AddField(
            model_name='triggerinstance',
            name='tenant',
            field=models.CharField(blank=True, db_default='', default='', max_length=64),
        ),
        migrations.AddIndex(
            model_name='triggerinstance',
            index=models.Index(condition=models.Q(('tenant', ''), _negated=True), fields=['tenant', '-created_at'], name='trigger_tenant_created_idx'),
        ),
    ]
