"""Email layouts and partials, and their versions (docs/layouts.md). A version is never changed
once written: the guard every log uses (`notiflow_append_only()`, triggers 0007) refuses UPDATE,
DELETE and TRUNCATE on it, as on a catalog's (content 0001)."""

from django.db import migrations, models

APPEND_ONLY = """
CREATE TRIGGER content_version_append_only
    BEFORE UPDATE OR DELETE ON content_version
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();
CREATE TRIGGER content_version_no_truncate BEFORE TRUNCATE ON content_version
    FOR EACH STATEMENT EXECUTE FUNCTION notiflow_append_only();
"""
APPEND_ONLY_REVERSE = """
DROP TRIGGER IF EXISTS content_version_no_truncate ON content_version;
DROP TRIGGER IF EXISTS content_version_append_only ON content_version;
"""


class Migration(migrations.Migration):

    dependencies = [
        ('content', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='Layout',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(max_length=64, unique=True)),
                ('name', models.CharField(max_length=200)),
                ('html', models.TextField()),
                ('text', models.TextField(blank=True, default='')),
                ('version', models.PositiveIntegerField()),
                ('updated_by', models.CharField(blank=True, default='', max_length=255)),
                ('updated_at', models.DateTimeField()),
            ],
            options={
                'db_table': 'content_layout',
                'ordering': ['key'],
            },
        ),
        migrations.CreateModel(
            name='Partial',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(max_length=64, unique=True)),
                ('content', models.TextField()),
                ('version', models.PositiveIntegerField()),
                ('updated_by', models.CharField(blank=True, default='', max_length=255)),
                ('updated_at', models.DateTimeField()),
            ],
            options={
                'db_table': 'content_partial',
                'ordering': ['key'],
            },
        ),
        migrations.CreateModel(
            name='ContentVersion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('layout', 'Layout'), ('partial', 'Partial')], max_length=16)),
                ('key', models.CharField(max_length=64)),
                ('number', models.PositiveIntegerField()),
                ('content', models.JSONField(null=True)),
                ('created_by', models.CharField(blank=True, default='', max_length=255)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'db_table': 'content_version',
                'ordering': ['kind', 'key', '-number'],
                'constraints': [models.UniqueConstraint(fields=('kind', 'key', 'number'), name='content_version_number')],
            },
        ),
        migrations.RunSQL(APPEND_ONLY, APPEND_ONLY_REVERSE),
    ]
