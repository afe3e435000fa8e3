# Catalogs per tenant (docs/tenants.md): a catalog is one per (tenant, locale), the shared one
# with an empty tenant; versions are numbered per (tenant, locale). The columns are added with a
# constant default (no rewrite, no UPDATE of the append-only versions).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('content', '0002_layouts_partials'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='translationcatalog',
            options={'ordering': ['tenant', 'locale']},
        ),
        migrations.AlterModelOptions(
            name='translationcatalogversion',
            options={'ordering': ['tenant', 'locale', '-number']},
        ),
        migrations.RemoveConstraint(
            model_name='translationcatalogversion',
            name='translation_catalog_version_number',
        ),
        migrations.AddField(
            model_name='translationcatalog',
            name='tenant',
            field=models.CharField(blank=True, default='', max_length=64),
        ),
        migrations.AddField(
            model_name='translationcatalogversion',
            name='tenant',
            field=models.CharField(blank=True, default='', max_length=64),
        ),
        migrations.AlterField(
            model_name='translationcatalog',
            name='locale',
            field=models.CharField(max_length=35),
        ),
        migrations.AddConstraint(
            model_name='translationcatalog',
            constraint=models.UniqueConstraint(fields=('tenant', 'locale'), name='translation_catalog_locale'),
        ),
        migrations.AddConstraint(
            model_name='translationcatalogversion',
            constraint=models.UniqueConstraint(fields=('tenant', 'locale', 'number'), name='translation_catalog_version_number'),
        ),
    ]
