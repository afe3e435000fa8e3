"""Retention of soft-deleted triggers (docs/design/rules.md, rules 8 and 12; `manage.py purge_deleted`).

`notiflow_purge_deleted_batch(cutoff, batch_size)` deletes up to `batch_size` soft-deleted
triggers (`deleted_at` before `cutoff`, whatever their status) with their step logs, send-ledger
rows and events, and returns how many rows left each table, like `notiflow_purge_batch` (workers
0005). It runs as `notiflow_retention` (SECURITY DEFINER), the one role the append-only guard lets
delete, and can delete nothing but a deleted trigger's rows. A deleted trigger whose lease is
still live (a step that was running when it was deleted may yet record its outcome) is left for
the next run. EXECUTE is granted to the role that migrates and to nobody else; the grants on the
tables are workers 0005's.
"""

from django.db import migrations

PURGE_DELETED = """
CREATE FUNCTION notiflow_purge_deleted_batch(cutoff timestamptz, batch_size integer)
RETURNS TABLE (step_log bigint, send_ledger bigint, trigger_event bigint, trigger_instance bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    doomed uuid[];
BEGIN
    -- FOR UPDATE serialises with a delete, cancel or step outcome of the same trigger; SKIP
    -- LOCKED lets a purge run beside the live system. No index serves deleted_at: deleted
    -- triggers are few, and a run is usually one batch, one scan.
    SELECT array_agg(t.id) INTO doomed FROM (
        SELECT id FROM public.trigger_instance
        WHERE deleted_at < cutoff
          AND (lease_until IS NULL OR lease_until < now())
        LIMIT batch_size
        FOR UPDATE SKIP LOCKED
    ) AS t;
    step_log := 0; send_ledger := 0; trigger_event := 0; trigger_instance := 0;
    IF doomed IS NOT NULL THEN
        DELETE FROM public.step_log s WHERE s.trigger_id = ANY (doomed);
        GET DIAGNOSTICS step_log = ROW_COUNT;
        DELETE FROM public.send_ledger l WHERE l.trigger_id = ANY (doomed);
        GET DIAGNOSTICS send_ledger = ROW_COUNT;
        DELETE FROM public.trigger_event e WHERE e.trigger_id = ANY (doomed);
        GET DIAGNOSTICS trigger_event = ROW_COUNT;
        DELETE FROM public.trigger_instance t WHERE t.id = ANY (doomed);
        GET DIAGNOSTICS trigger_instance = ROW_COUNT;
    END IF;
    RETURN NEXT;
END
$$;
REVOKE ALL ON FUNCTION notiflow_purge_deleted_batch(timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION notiflow_purge_deleted_batch(timestamptz, integer) TO CURRENT_USER;
-- Last: the grant above is made as the function's first owner (and kept by the new one).
ALTER FUNCTION notiflow_purge_deleted_batch(timestamptz, integer) OWNER TO notiflow_retention;
"""
PURGE_DELETED_BEFORE = "DROP FUNCTION IF EXISTS notiflow_purge_deleted_batch(timestamptz, integer);"


class Migration(migrations.Migration):
    dependencies = [
        ("workers", "0005_append_only_by_arguments"),
        ("triggers", "0008_priority_soft_delete"),
    ]

    operations = [migrations.RunSQL(PURGE_DELETED, PURGE_DELETED_BEFORE)]
