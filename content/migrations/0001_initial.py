"""The translation catalogs and their versions (docs/translations.md). A version is never changed
once written: the guard every log uses (`notiflow_append_only()`, triggers 0007) refuses UPDATE,
DELETE and TRUNCATE on it."""

from django.db import migrations, models

APPEND_ONLY = """
CREATE TRIGGER translation_catalog_version_append_only
    BEFORE UPDATE OR DELETE ON translation_catalog_version
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();
CREATE TRIGGER translation_catalog_version_no_truncate BEFORE TRUNCATE ON translation_catalog_version
    FOR EACH STATEMENT EXECUTE FUNCTION notiflow_append_only();
"""
APPEND_ONLY_REVERSE = """
DROP TRIGGER IF EXISTS translation_catalog_version_no_truncate ON translation_catalog_version;
DROP TRIGGER IF EXISTS translation_catalog_version_append_only ON translation_catalog_version;
"""


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('triggers', '0007_append_only_by_arguments'),
    ]

    operations = [
        migrations.CreateModel(
            name='TranslationCatalog',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('locale', models.CharField(max_length=35, unique=True)),
                ('messages', models.JSONField(default=dict)),
                ('version', models.PositiveIntegerField()),
                ('updated_by', models.CharField(blank=True, default='', max_length=255)),
                ('updated_at', models.DateTimeField()),
            ],
            options={
                'db_table': 'translation_catalog',
                'ordering': ['locale'],
            },
        ),
        migrations.CreateModel(
            name='TranslationCatalogVersion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('locale', models.CharField(max_length=35)),
                ('number', models.PositiveIntegerField()),
                ('messages', models.JSONField(null=True)),
                ('created_by', models.CharField(blank=True, default='', max_length=255)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'db_table': 'translation_catalog_version',
                'ordering': ['locale', '-number'],
                'constraints': [models.UniqueConstraint(fields=('locale', 'number'), name='translation_catalog_version_number')],
            },
        ),
        migrations.RunSQL(APPEND_ONLY, APPEND_ONLY_REVERSE),
    ]
