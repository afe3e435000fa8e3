"""Which triggers a purge deletes, in one home each (issue 32 §2): two SQL predicates that the
purge functions (`notiflow_purge_batch`, workers 0005; `notiflow_purge_deleted_batch`, workers
0006) and the dry run's counts (workers/sql.py, `Purge.doomed_where`) all call.

- `notiflow_purge_finished_v1(status, created_at, completed_at, cutoff)`: finished (completed,
  failed or cancelled) before the cutoff; the redundant created_at bound lets the (status,
  created_at) index serve.
- `notiflow_purge_deleted_v1(deleted_at, lease_until, cutoff)`: soft-deleted before the cutoff,
  and under no live lease (notiflow_lease_expired_v1, triggers 0011).

Both are one expression in a LANGUAGE sql function, which PostgreSQL inlines: the plans are those
of the expressions written out (tests/test_rule_homes.py). The purge functions are replaced with
the same bodies but for their WHERE (CREATE OR REPLACE keeps their owner, notiflow_retention,
and their grants).
"""

from django.db import migrations

PREDICATES = """
CREATE FUNCTION notiflow_purge_finished_v1(
    status text, created_at timestamptz, completed_at timestamptz, cutoff timestamptz
) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT status IN ('completed', 'failed', 'cancelled')
             AND created_at < cutoff AND completed_at < cutoff $$;
CREATE FUNCTION notiflow_purge_deleted_v1(
    deleted_at timestamptz, lease_until timestamptz, cutoff timestamptz
) RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT deleted_at < cutoff
             AND (lease_until IS NULL OR public.notiflow_lease_expired_v1(lease_until, now())) $$;
"""
PREDICATES_BEFORE = """
DROP FUNCTION IF EXISTS notiflow_purge_finished_v1(text, timestamptz, timestamptz, timestamptz);
DROP FUNCTION IF EXISTS notiflow_purge_deleted_v1(timestamptz, timestamptz, timestamptz);
"""


def purge_function(name: str, doomed_where: str) -> str:
    """`name`(cutoff, batch_size) as workers 0005 and 0006 define it, choosing `doomed_where`."""
    return f"""
CREATE OR REPLACE FUNCTION {name}(cutoff timestamptz, batch_size integer)
RETURNS TABLE (step_log bigint, send_ledger bigint, trigger_event bigint, trigger_instance bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    doomed uuid[];
BEGIN
    -- FOR UPDATE serialises with a delete, cancel, retry or step outcome of the same trigger;
    -- SKIP LOCKED lets a purge run beside the live system.
    SELECT array_agg(t.id) INTO doomed FROM (
        SELECT id FROM public.trigger_instance
        WHERE {doomed_where}
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
"""  # noqa: S608 (constants of this migration)


FINISHED = "public.notiflow_purge_finished_v1(status, created_at, completed_at, cutoff)"
FINISHED_BEFORE = "status IN ('completed', 'failed', 'cancelled') AND created_at < cutoff AND completed_at < cutoff"
DELETED = "public.notiflow_purge_deleted_v1(deleted_at, lease_until, cutoff)"
DELETED_BEFORE = "deleted_at < cutoff AND (lease_until IS NULL OR lease_until < now())"


class Migration(migrations.Migration):
    dependencies = [
        ("workers", "0009_flow_nodes"),
        ("triggers", "0011_lease_expired_function"),
    ]

    operations = [
        migrations.RunSQL(PREDICATES, PREDICATES_BEFORE),
        migrations.RunSQL(
            purge_function("notiflow_purge_batch", FINISHED),
            purge_function("notiflow_purge_batch", FINISHED_BEFORE),
        ),
        migrations.RunSQL(
            purge_function("notiflow_purge_deleted_batch", DELETED),
            purge_function("notiflow_purge_deleted_batch", DELETED_BEFORE),
        ),
    ]
