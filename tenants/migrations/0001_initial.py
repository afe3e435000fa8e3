"""Tenants and their change log (docs/tenants.md). A change is never changed once written: the
guard every log uses (`notiflow_append_only()`, triggers 0007) refuses UPDATE, DELETE and
TRUNCATE on it."""

from django.db import migrations, models

APPEND_ONLY = """
CREATE TRIGGER tenant_change_append_only
    BEFORE UPDATE OR DELETE ON tenant_change
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();
CREATE TRIGGER tenant_change_no_truncate BEFORE TRUNCATE ON tenant_change
    FOR EACH STATEMENT EXECUTE FUNCTION notiflow_append_only();
"""
APPEND_ONLY_REVERSE = """
DROP TRIGGER IF EXISTS tenant_change_no_truncate ON tenant_change;
DROP TRIGGER IF EXISTS tenant_change_append_only ON tenant_change;
"""


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('triggers', '0007_append_only_by_arguments'),
    ]

    operations = [
        migrations.CreateModel(
            name='Tenant',
            fields=[
                ('id', models.CharField(max_length=64, primary_key=True, serialize=False)),
                ('name', models.CharField(max_length=255)),
                ('properties', models.JSONField(default=dict)),
                ('default_locale', models.CharField(blank=True, default='', max_length=35)),
                ('layout', models.CharField(blank=True, default='', max_length=100)),
                ('preferences', models.JSONField(default=dict)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField()),
                ('updated_by', models.CharField(blank=True, default='', max_length=255)),
            ],
            options={
                'db_table': 'tenant',
                'ordering': ['id'],
            },
        ),
        migrations.CreateModel(
            name='TenantChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('tenant', models.CharField(max_length=64)),
                ('change', models.CharField(max_length=10)),
                ('created_by', models.CharField(blank=True, default='', max_length=255)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'db_table': 'tenant_change',
                'ordering': ['-id'],
            },
        ),
        migrations.RunSQL(APPEND_ONLY, APPEND_ONLY_REVERSE),
    ]
