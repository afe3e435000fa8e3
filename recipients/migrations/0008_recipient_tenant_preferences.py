# A person's preferences per tenant (docs/tenants.md).

import django.db.models.deletion
import django.db.models.functions.datetime
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('recipients', '0007_fanout_tenant'),
        ('tenants', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='RecipientTenantPreferences',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('preferences', models.JSONField(default=dict)),
                ('updated_at', models.DateTimeField(db_default=django.db.models.functions.datetime.Now())),
                ('recipient', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tenant_preferences', to='recipients.recipient')),
                ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='recipient_preferences', to='tenants.tenant')),
            ],
            options={
                'db_table': 'recipient_tenant_preferences',
                'constraints': [models.UniqueConstraint(fields=('recipient', 'tenant'), name='recipient_tenant_preferences_unique')],
            },
        ),
    ]
