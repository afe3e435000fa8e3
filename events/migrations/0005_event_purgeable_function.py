"""Which outbox events the purge deletes, in one home (docs/design/rules.md, rule 8;
docs/design/index.md, "One home for each rule"): `notiflow_events_purgeable_v1(cutoff)`, the events written before the cutoff and
pending for no endpoint (a disabled one included), which both the purge function
(`notiflow_purge_events_batch`, migration 0002) and the dry run's counts (events/sql.py) read.
Until now migration 0002 and events/sql.py each wrote the rule out.

One SELECT in a LANGUAGE sql set-returning function, which PostgreSQL inlines (a boolean function
holding a subquery it would not): the plans are those of the query written out. The purge function is replaced with the same body but for its WHERE
(CREATE OR REPLACE keeps its owner, notiflow_retention, and its grants). Statuses are spelled
here, once per version."""

from django.db import migrations

PREDICATE = """
CREATE FUNCTION notiflow_events_purgeable_v1(cutoff timestamptz)
RETURNS TABLE (id bigint, event_id uuid) LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT o.id, o.event_id FROM public.outbox_event o
      WHERE o.time < cutoff
        AND NOT EXISTS (SELECT 1 FROM public.webhook_delivery d
                        WHERE d.event_id = o.id AND d.status = 'pending') $$;
COMMENT ON FUNCTION notiflow_events_purgeable_v1(timestamptz) IS
    'The outbox events written before the cutoff of which no delivery is pending. events/sql.py';
"""
PREDICATE_BEFORE = "DROP FUNCTION IF EXISTS notiflow_events_purgeable_v1(timestamptz);"


def purge_function(doomed_where: str) -> str:
    """notiflow_purge_events_batch as migration 0002 defines it, choosing `doomed_where`."""
    return f"""
CREATE OR REPLACE FUNCTION notiflow_purge_events_batch(cutoff timestamptz, batch_size integer)
RETURNS TABLE (webhook_attempt bigint, webhook_delivery bigint, outbox_event bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    doomed bigint[];
BEGIN
    SELECT array_agg(e.id) INTO doomed FROM (
        SELECT id FROM outbox_event o
        WHERE {doomed_where}
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
"""  # noqa: S608 (constants of this migration)


PURGEABLE = "o.id IN (SELECT p.id FROM public.notiflow_events_purgeable_v1(cutoff) p)"
PURGEABLE_BEFORE = """o.time < cutoff
          AND NOT EXISTS (SELECT 1 FROM webhook_delivery d
                          WHERE d.event_id = o.id AND d.status = 'pending')"""


class Migration(migrations.Migration):
    dependencies = [("events", "0004_delivery_claim_and_finish_functions")]

    operations = [
        migrations.RunSQL(PREDICATE, PREDICATE_BEFORE),
        migrations.RunSQL(purge_function(PURGEABLE), purge_function(PURGEABLE_BEFORE)),
    ]
