"""Events and attempts are append-only (docs/design/rules.md, rule 8), and retention has one function.

`notiflow_purge_events_batch(cutoff, batch_size)` deletes up to `batch_size` events written
before `cutoff` whose deliveries are all over (delivered or failed: an event still pending for
some endpoint, a disabled one included, is never purged), with their deliveries and attempts, and
returns how many rows left each table. Like the triggers' purge (workers 0005) it runs as
`notiflow_retention`, the one role the append-only guard lets delete.
"""

from django.db import migrations

GUARDS = """
CREATE TRIGGER outbox_event_append_only BEFORE UPDATE OR DELETE ON outbox_event
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();
CREATE TRIGGER outbox_event_no_truncate BEFORE TRUNCATE ON outbox_event
    FOR EACH STATEMENT EXECUTE FUNCTION notiflow_append_only();
CREATE TRIGGER webhook_attempt_append_only BEFORE UPDATE OR DELETE ON webhook_attempt
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();
CREATE TRIGGER webhook_attempt_no_truncate BEFORE TRUNCATE ON webhook_attempt
    FOR EACH STATEMENT EXECUTE FUNCTION notiflow_append_only();
"""
GUARDS_BEFORE = """
DROP TRIGGER IF EXISTS outbox_event_append_only ON outbox_event;
DROP TRIGGER IF EXISTS outbox_event_no_truncate ON outbox_event;
DROP TRIGGER IF EXISTS webhook_attempt_append_only ON webhook_attempt;
DROP TRIGGER IF EXISTS webhook_attempt_no_truncate ON webhook_attempt;
"""

PURGE = """
CREATE FUNCTION notiflow_purge_events_batch(cutoff timestamptz, batch_size integer)
RETURNS TABLE (webhook_attempt bigint, webhook_delivery bigint, outbox_event bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    doomed bigint[];
BEGIN
    SELECT array_agg(e.id) INTO doomed FROM (
        SELECT id FROM outbox_event o
        WHERE o.time < cutoff
          AND NOT EXISTS (SELECT 1 FROM webhook_delivery d
                          WHERE d.event_id = o.id AND d.status = 'pending')
        ORDER BY o.time
        LIMIT batch_size
        FOR UPDATE SKIP LOCKED
    ) AS e;
    webhook_attempt := 0; webhook_delivery := 0; outbox_event := 0;
    IF doomed IS NOT NULL THEN
        DELETE FROM public.webhook_attempt a
        USING public.outbox_event o
        WHERE o.id = ANY (doomed) AND a.event_id = o.event_id;
        GET DIAGNOSTICS webhook_attempt = ROW_COUNT;
        DELETE FROM public.webhook_delivery d WHERE d.event_id = ANY (doomed);
        GET DIAGNOSTICS webhook_delivery = ROW_COUNT;
        DELETE FROM public.outbox_event o WHERE o.id = ANY (doomed);
        GET DIAGNOSTICS outbox_event = ROW_COUNT;
    END IF;
    RETURN NEXT;
END
$$;
-- UPDATE only for FOR UPDATE SKIP LOCKED, which lets two purges share the work (the
-- append-only guard still refuses any UPDATE of an event).
GRANT SELECT, UPDATE, DELETE ON outbox_event TO notiflow_retention;
GRANT SELECT, DELETE ON webhook_delivery, webhook_attempt TO notiflow_retention;
REVOKE ALL ON FUNCTION notiflow_purge_events_batch(timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION notiflow_purge_events_batch(timestamptz, integer) TO CURRENT_USER;
ALTER FUNCTION notiflow_purge_events_batch(timestamptz, integer) OWNER TO notiflow_retention;
"""
PURGE_BEFORE = """
DROP FUNCTION IF EXISTS notiflow_purge_events_batch(timestamptz, integer);
REVOKE ALL ON outbox_event, webhook_delivery, webhook_attempt FROM notiflow_retention;
"""


class Migration(migrations.Migration):
    # The guard function and the retention role come from triggers 0007.
    dependencies = [("events", "0001_outbox"), ("triggers", "0007_append_only_by_arguments")]

    operations = [
        migrations.RunSQL(GUARDS, GUARDS_BEFORE),
        migrations.RunSQL(PURGE, PURGE_BEFORE),
    ]
