"""Reports that named a send but not its provider or recipient (docs/security/providers.md, "Provider
reports"): stored apart, and purged with their trigger like delivery events (0002)."""

import django.db.models.functions.datetime
from django.db import migrations, models

SQL = """
CREATE OR REPLACE FUNCTION notiflow_delivery_events_purge() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
    DELETE FROM public.delivery_event WHERE trigger_id = OLD.id;
    DELETE FROM public.delivery_unmatched_report WHERE trigger_id = OLD.id;
    RETURN OLD;
END
$$;
GRANT SELECT, DELETE ON delivery_unmatched_report TO notiflow_retention;
"""
REVERSE = """
CREATE OR REPLACE FUNCTION notiflow_delivery_events_purge() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
    DELETE FROM public.delivery_event WHERE trigger_id = OLD.id;
    RETURN OLD;
END
$$;
REVOKE ALL ON delivery_unmatched_report FROM notiflow_retention;
"""


class Migration(migrations.Migration):
    dependencies = [("deliveries", "0002_append_only_and_retention")]

    operations = [
        migrations.CreateModel(
            name="UnmatchedReport",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("trigger_id", models.UUIDField()),
                ("node_id", models.CharField(max_length=100)),
                ("channel", models.CharField(max_length=16)),
                ("reporter", models.CharField(max_length=50)),
                ("provider", models.CharField(blank=True, max_length=50)),
                ("event", models.CharField(max_length=20)),
                ("recipient", models.CharField(blank=True, max_length=320)),
                ("provider_message_id", models.CharField(blank=True, max_length=255)),
                ("reason", models.CharField(max_length=200)),
                ("dedupe_key", models.CharField(max_length=64, unique=True)),
                ("received_at", models.DateTimeField(db_default=django.db.models.functions.datetime.Now())),
                ("raw", models.JSONField(default=dict)),
            ],
            options={"db_table": "delivery_unmatched_report", "ordering": ["received_at", "id"]},
        ),
        migrations.RunSQL(SQL, REVERSE),
    ]
