"""The workers' side of triggers 0007: the send ledger's one allowed change as its guard's
arguments, TRUNCATE refused on the step log and the ledger, and retention through one function.

`notiflow_purge_batch(cutoff, batch_size)` deletes up to `batch_size` finished triggers
(completed, failed or cancelled, finished and created before `cutoff`) with their step logs,
send-ledger rows and events, and returns how many rows left each table. It runs as
`notiflow_retention` (SECURITY DEFINER), the one role the guard lets delete; EXECUTE is granted
to the role that migrates (the owner, who runs `manage.py purge_logs`) and to nobody else.
"""

from django.db import migrations

LEDGER_GUARD = """
DROP TRIGGER IF EXISTS send_ledger_append_only ON send_ledger;
CREATE TRIGGER send_ledger_append_only BEFORE UPDATE OR DELETE ON send_ledger
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only(
        'status', 'sending', 'sending,sent', 'trigger_id,node_id,idempotency_key');
"""
LEDGER_GUARD_BEFORE = """
DROP TRIGGER IF EXISTS send_ledger_append_only ON send_ledger;
CREATE TRIGGER send_ledger_append_only BEFORE UPDATE OR DELETE ON send_ledger
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();
"""

PURGE = """
CREATE FUNCTION notiflow_purge_batch(cutoff timestamptz, batch_size integer)
RETURNS TABLE (step_log bigint, send_ledger bigint, trigger_event bigint, trigger_instance bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    doomed uuid[];
BEGIN
    -- Finished before the cutoff: the redundant created_at bound lets the (status, created_at)
    -- index serve. FOR UPDATE serialises with a retry of the same trigger; SKIP LOCKED lets a
    -- purge run beside the live system.
    SELECT array_agg(t.id) INTO doomed FROM (
        SELECT id FROM trigger_instance
        WHERE status IN ('completed', 'failed', 'cancelled')
          AND created_at < cutoff AND completed_at < cutoff
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
GRANT SELECT, UPDATE, DELETE ON trigger_instance TO notiflow_retention;
GRANT SELECT, DELETE ON step_log, send_ledger, trigger_event TO notiflow_retention;
REVOKE ALL ON FUNCTION notiflow_purge_batch(timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION notiflow_purge_batch(timestamptz, integer) TO CURRENT_USER;
-- Last: the grants above are made as the function's first owner (and kept by the new one).
ALTER FUNCTION notiflow_purge_batch(timestamptz, integer) OWNER TO notiflow_retention;
"""
PURGE_BEFORE = """
DROP FUNCTION IF EXISTS notiflow_purge_batch(timestamptz, integer);
REVOKE ALL ON trigger_instance, step_log, send_ledger, trigger_event FROM notiflow_retention;
"""


def no_truncate(table: str) -> tuple[str, str]:
    return (
        f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION notiflow_append_only();",
        f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table};",
    )


class Migration(migrations.Migration):
    dependencies = [("workers", "0004_redundant_indexes"), ("triggers", "0007_append_only_by_arguments")]

    operations = [
        migrations.RunSQL(LEDGER_GUARD, LEDGER_GUARD_BEFORE),
        migrations.RunSQL(*no_truncate("step_log")),
        migrations.RunSQL(*no_truncate("send_ledger")),
        migrations.RunSQL(PURGE, PURGE_BEFORE),
    ]
