"""Delivery events are append-only (docs/design/rules.md, rule 8), and leave with their trigger.

The guard is the one every log uses (`notiflow_append_only()`, triggers 0007): no UPDATE, no
TRUNCATE, DELETE only by `notiflow_retention`. The retention functions (workers 0005, 0006) delete
triggers as that role; a row trigger on `trigger_instance` then deletes the trigger's delivery
events in the same statement, so neither function needs to know this table.
"""

from django.db import migrations

SQL = """
CREATE TRIGGER delivery_event_append_only BEFORE UPDATE OR DELETE ON delivery_event
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();
CREATE TRIGGER delivery_event_no_truncate BEFORE TRUNCATE ON delivery_event
    FOR EACH STATEMENT EXECUTE FUNCTION notiflow_append_only();

CREATE FUNCTION notiflow_delivery_events_purge() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
    DELETE FROM public.delivery_event WHERE trigger_id = OLD.id;
    RETURN OLD;
END
$$;
CREATE TRIGGER trigger_instance_purge_delivery_events AFTER DELETE ON trigger_instance
    FOR EACH ROW EXECUTE FUNCTION notiflow_delivery_events_purge();
GRANT SELECT, DELETE ON delivery_event TO notiflow_retention;
"""
REVERSE = """
DROP TRIGGER IF EXISTS trigger_instance_purge_delivery_events ON trigger_instance;
DROP FUNCTION IF EXISTS notiflow_delivery_events_purge();
DROP TRIGGER IF EXISTS delivery_event_no_truncate ON delivery_event;
DROP TRIGGER IF EXISTS delivery_event_append_only ON delivery_event;
REVOKE ALL ON delivery_event FROM notiflow_retention;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("deliveries", "0001_initial"),
        ("workers", "0006_purge_deleted_batch"),
        ("triggers", "0007_append_only_by_arguments"),
    ]

    operations = [migrations.RunSQL(SQL, REVERSE)]
