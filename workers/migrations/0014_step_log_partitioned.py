"""The step log partitioned by its run's creation time (issue 51 §4; docs/reliability/index.md, "Step
logs by partition"), so that retention drops a day of them whole instead of deleting them row by
row.

- `step_log.run_created_at` (timestamptz) is its run's `created_at`, which the release writes
  from version 6 on (triggers migration 0029): every step log of a run lands in the one
  partition of its run, so the partitions' unique index (trigger_id, node_id, attempt) is as
  strict as the table's was, and a day's partition can go once none of that day's runs is left.
- `step_log` becomes a table partitioned by RANGE (run_created_at). The table as it was, rows and
  indexes, becomes its DEFAULT partition `step_log_legacy`: it holds every row whose
  `run_created_at` is NULL, the rows written before this migration and any that a release of
  the previous version (v5, which knows no such column) writes while workers of two versions
  run side by side. A valid CHECK (run_created_at IS NULL) says so, which spares PostgreSQL a
  scan of it each time a partition is added. Retention deletes its rows as before, row by row,
  until it is empty.
- The range partitions: `step_log_before` from MINVALUE to the day this migration ran (runs
  created before it whose next steps come after), then one per `span_days` from there, created
  ahead of time by `notiflow_step_log_partitions_v1(upto, span_days)` (beat's
  `workers.step_log_partitions`, hourly; this migration creates the first week). Each has a
  primary key on `id`, the unique index above and the guard against TRUNCATE.
- `notiflow_step_log_ranges_v1()` lists the range partitions with their bounds;
  `notiflow_step_log_drop_v1(partition, cutoff)` drops one whose upper bound is at or before
  `cutoff` once no run created in its range is left (workers/services/history.py calls it after
  retention's batches have deleted the runs).
- No foreign key from the step log to its run any more: a partition's rows outlive their runs
  until the partition goes (the release writes a step log only for the run it has just
  updated, so no row is written for a run that does not exist). The one to its workflow stays.

Downtime: the conversion takes its locks for a moment and scans nothing but for the VALIDATE of
the CHECK, which runs in a transaction of its own under a lock that lets the workers write
(SHARE UPDATE EXCLUSIVE). Hence `atomic = False`: four transactions, each whole (the column; the
VALIDATE; the functions; the partitioned table).
"""

import importlib
from collections.abc import Callable
from typing import Any

from django.db import migrations, models

_PURGE = importlib.import_module("workers.migrations.0010_purge_choice_functions")
_GUARD = importlib.import_module("triggers.migrations.0007_append_only_by_arguments")

# The append-only guard names the table a refused change was made to, not the partition.
GUARD_BEFORE = _GUARD.FUNCTION
GUARD = GUARD_BEFORE.replace(
    "RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP",
    "RAISE EXCEPTION '% is append-only: % refused',\n"
    "        (SELECT c.relname FROM pg_catalog.pg_class c\n"
    "         WHERE c.oid = coalesce(pg_catalog.pg_partition_root(TG_RELID), TG_RELID)), TG_OP",
)
assert GUARD != GUARD_BEFORE

# 1. The column, and the CHECK that the rows so far have none (NOT VALID: no scan, no long lock).
COLUMN = """
ALTER TABLE step_log ADD COLUMN run_created_at timestamptz;
ALTER TABLE step_log ADD CONSTRAINT step_log_legacy_unpartitioned
    CHECK (run_created_at IS NULL) NOT VALID;
"""
COLUMN_BEFORE = """
ALTER TABLE step_log DROP CONSTRAINT IF EXISTS step_log_legacy_unpartitioned;
ALTER TABLE step_log DROP COLUMN IF EXISTS run_created_at;
"""

# 2. The scan, while the workers go on writing.
VALIDATE = "ALTER TABLE step_log VALIDATE CONSTRAINT step_log_legacy_unpartitioned;"

FUNCTIONS = """
CREATE FUNCTION notiflow_step_log_ranges_v1()
RETURNS TABLE (partition text, lower_bound timestamptz, upper_bound timestamptz)
LANGUAGE sql STABLE SET search_path = pg_catalog, public AS $$
    SELECT c.relname::text,
           CASE WHEN b[1] = 'MINVALUE' THEN '-infinity'::timestamptz ELSE b[1]::timestamptz END,
           b[2]::timestamptz
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                    'FROM \\(''?([^'')]+)''?\\) TO \\(''?([^'')]+)''?\\)') AS b
    WHERE i.inhparent = 'public.step_log'::regclass AND b IS NOT NULL
$$;
COMMENT ON FUNCTION notiflow_step_log_ranges_v1() IS
    'The step log''s range partitions and their bounds. workers/services/history.py';

-- SECURITY DEFINER: beat's task runs on a worker, whose role owns no table (workers/services/
-- roles.py); EXECUTE is granted to it there.
CREATE FUNCTION notiflow_step_log_partitions_v1(upto timestamptz, span_days integer)
RETURNS SETOF text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    bound timestamptz;
    name text;
BEGIN
    IF span_days < 1 THEN
        RAISE EXCEPTION 'a partition spans at least one day, not %', span_days;
    END IF;
    SELECT max(r.upper_bound) INTO bound FROM public.notiflow_step_log_ranges_v1() AS r;
    IF bound IS NULL THEN
        -- The first: every run created before today (UTC).
        bound := date_trunc('day', statement_timestamp(), 'UTC');
        name := 'step_log_before';
        EXECUTE format('CREATE TABLE public.%I PARTITION OF public.step_log'
                       ' FOR VALUES FROM (MINVALUE) TO (%L)', name, bound);
        PERFORM public.notiflow_step_log_partition_setup_v1(name);
        RETURN NEXT name;
    END IF;
    WHILE bound < upto LOOP
        name := 'step_log_p' || to_char(bound AT TIME ZONE 'UTC', 'YYYYMMDD');
        EXECUTE format('CREATE TABLE public.%I PARTITION OF public.step_log'
                       ' FOR VALUES FROM (%L) TO (%L)',
                       name, bound, bound + make_interval(days => span_days));
        PERFORM public.notiflow_step_log_partition_setup_v1(name);
        bound := bound + make_interval(days => span_days);
        RETURN NEXT name;
    END LOOP;
END
$$;
COMMENT ON FUNCTION notiflow_step_log_partitions_v1(timestamptz, integer) IS
    'Creates the step log''s partitions up to a time; their names. workers/services/history.py';

CREATE FUNCTION notiflow_step_log_partition_setup_v1(name text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
    -- What a partitioned table cannot declare for its partitions: a key without the partition
    -- column. Within a partition every row is of runs created in its range, one run's rows all
    -- in one partition, so (trigger_id, node_id, attempt) is unique over the whole table.
    EXECUTE format('ALTER TABLE public.%I ADD PRIMARY KEY (id)', name);
    EXECUTE format('CREATE UNIQUE INDEX %I ON public.%I (trigger_id, node_id, attempt)',
                   name || '_once_per_attempt', name);
    EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON public.%I'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION public.notiflow_append_only()',
                   name || '_no_truncate', name);
END
$$;

CREATE FUNCTION notiflow_step_log_drop_v1(name text, cutoff timestamptz)
RETURNS bigint
LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
DECLARE
    range record;
    dropped bigint;
BEGIN
    SELECT * INTO range FROM public.notiflow_step_log_ranges_v1() AS r WHERE r.partition = name;
    IF NOT FOUND OR range.upper_bound > cutoff THEN
        RETURN NULL;
    END IF;
    -- A run is created at the statement's time, never in a range already past: once none is
    -- left in the range, none can come back, and no step log can be written there again.
    IF EXISTS (SELECT 1 FROM public.trigger_instance t
               WHERE t.created_at >= range.lower_bound AND t.created_at < range.upper_bound) THEN
        RETURN NULL;
    END IF;
    EXECUTE format('SELECT count(*) FROM public.%I', name) INTO dropped;
    EXECUTE format('DROP TABLE public.%I', name);
    RETURN dropped;
END
$$;
COMMENT ON FUNCTION notiflow_step_log_drop_v1(text, timestamptz) IS
    'Drops a step log partition past the cutoff that no run is left in; its rows, or NULL. '
    'workers/services/history.py';
REVOKE EXECUTE ON FUNCTION notiflow_step_log_drop_v1(text, timestamptz) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION notiflow_step_log_partitions_v1(timestamptz, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION notiflow_step_log_partition_setup_v1(text) FROM PUBLIC;
"""

FUNCTIONS_BEFORE = """
DROP FUNCTION IF EXISTS notiflow_step_log_drop_v1(text, timestamptz);
DROP FUNCTION IF EXISTS notiflow_step_log_partitions_v1(timestamptz, integer);
DROP FUNCTION IF EXISTS notiflow_step_log_partition_setup_v1(text);
DROP FUNCTION IF EXISTS notiflow_step_log_ranges_v1();
"""

# Retention's batches of finished runs (version 2, beside `notiflow_purge_batch`, which stays for
# the purge_logs of the release before) leave the step logs of runs created before
# `logs_dropped_below` to the drop of their partitions, which follows the batches: the oldest
# partitions, in a row, past the cutoff and with no run left in them that this purge does not
# take (`notiflow_step_log_dropping_below_v1`). Every other step log goes with its run as before,
# so a partition that a run keeps holds no rows of runs purged. The batches of deleted runs
# (`notiflow_purge_deleted_batch`) are unchanged: they delete from every partition.
_BATCH = _PURGE.purge_function("notiflow_purge_batch_v2", _PURGE.FINISHED)
PURGE = (
    _BATCH.replace(
        "CREATE OR REPLACE FUNCTION notiflow_purge_batch_v2(cutoff timestamptz, batch_size integer)",
        "CREATE FUNCTION notiflow_purge_batch_v2(cutoff timestamptz, batch_size integer,\n"
        "                                        logs_dropped_below timestamptz)",
    ).replace(
        "        DELETE FROM public.step_log s WHERE s.trigger_id = ANY (doomed);\n",
        "        DELETE FROM public.step_log s\n"
        "        WHERE s.trigger_id = ANY (doomed)\n"
        "          AND (s.run_created_at IS NULL\n"
        "               OR s.run_created_at >= coalesce(logs_dropped_below, '-infinity'));\n",
    )
    + """
CREATE FUNCTION notiflow_step_log_dropping_below_v1(cutoff timestamptz) RETURNS timestamptz
LANGUAGE sql STABLE SET search_path = pg_catalog, public AS $$
    SELECT max(upper_bound) FROM (
        SELECT r.upper_bound,
               bool_and(NOT EXISTS (
                   SELECT 1 FROM public.trigger_instance t
                   WHERE t.created_at >= r.lower_bound AND t.created_at < r.upper_bound
                     AND NOT public.notiflow_purge_finished_v1(t.status, t.created_at,
                                                               t.completed_at, cutoff)))
                   OVER (ORDER BY r.upper_bound) AS going
        FROM public.notiflow_step_log_ranges_v1() AS r
        WHERE r.upper_bound <= cutoff
    ) AS partitions
    WHERE going
$$;
COMMENT ON FUNCTION notiflow_step_log_dropping_below_v1(timestamptz) IS
    'Where the step log partitions that a purge of finished runs will drop end (NULL: none). '
    'workers/sql.py';
REVOKE ALL ON FUNCTION notiflow_purge_batch_v2(timestamptz, integer, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION notiflow_purge_batch_v2(timestamptz, integer, timestamptz)
    TO CURRENT_USER;
ALTER FUNCTION notiflow_purge_batch_v2(timestamptz, integer, timestamptz)
    OWNER TO notiflow_retention;
"""
)
assert PURGE.count("logs_dropped_below") == 2, PURGE
PURGE_BEFORE = """
DROP FUNCTION IF EXISTS notiflow_step_log_dropping_below_v1(timestamptz);
DROP FUNCTION IF EXISTS notiflow_purge_batch_v2(timestamptz, integer, timestamptz);
"""

# 3. The table as it was becomes the DEFAULT partition of a partitioned `step_log`: catalog
# changes only, under a lock held for as long as they take.
PARTITION = """
LOCK TABLE step_log IN ACCESS EXCLUSIVE MODE;
ALTER TABLE step_log RENAME TO step_log_legacy;
ALTER SEQUENCE step_log_id_seq RENAME TO step_log_legacy_id_seq;
ALTER TABLE step_log_legacy DROP CONSTRAINT step_log_trigger_id_af2f0676_fk_trigger_instance_id;
DROP TRIGGER step_log_append_only ON step_log_legacy;
ALTER TRIGGER step_log_no_truncate ON step_log_legacy RENAME TO step_log_legacy_no_truncate;

CREATE TABLE step_log (LIKE step_log_legacy INCLUDING DEFAULTS)
    PARTITION BY RANGE (run_created_at);
CREATE SEQUENCE step_log_id_seq OWNED BY step_log.id;
SELECT setval('step_log_id_seq', last_value, is_called) FROM step_log_legacy_id_seq;
ALTER TABLE step_log ALTER COLUMN id SET DEFAULT nextval('step_log_id_seq');
ALTER TABLE step_log ADD CONSTRAINT step_log_attempt_check CHECK (attempt >= 0);
ALTER TABLE step_log ADD CONSTRAINT step_log_workflow_id_fk FOREIGN KEY (workflow_id)
    REFERENCES workflows_workflow (id) DEFERRABLE INITIALLY DEFERRED;

-- Every other index of the old table becomes the partition's share of the same index of the
-- partitioned table, under the old name (the key and the unique one stay the partition's own).
DO $$
DECLARE
    names text[];
    definitions text[];
BEGIN
    SELECT array_agg(c.relname::text), array_agg(pg_get_indexdef(c.oid))
    INTO names, definitions
    FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
    WHERE x.indrelid = 'public.step_log_legacy'::regclass AND NOT x.indisunique;
    FOR i IN 1 .. coalesce(array_length(names, 1), 0) LOOP
        EXECUTE format('ALTER INDEX public.%I RENAME TO %I',
                       names[i], 'step_log_legacy' || substr(names[i], length('step_log') + 1));
        EXECUTE replace(definitions[i], ' ON public.step_log_legacy ', ' ON ONLY public.step_log ');
    END LOOP;
END
$$;
ALTER INDEX step_log_pkey RENAME TO step_log_legacy_pkey;
ALTER INDEX step_log_once_per_attempt RENAME TO step_log_legacy_once_per_attempt;

ALTER TABLE step_log ATTACH PARTITION step_log_legacy DEFAULT;
DO $$
DECLARE
    ix record;
BEGIN
    FOR ix IN
        SELECT c.relname AS name
        FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
        WHERE x.indrelid = 'public.step_log'::regclass
    LOOP
        EXECUTE format('ALTER INDEX public.%I ATTACH PARTITION public.%I',
                       ix.name, 'step_log_legacy' || substr(ix.name, length('step_log') + 1));
    END LOOP;
END
$$;

CREATE TRIGGER step_log_append_only BEFORE UPDATE OR DELETE ON step_log
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();
CREATE TRIGGER step_log_no_truncate BEFORE TRUNCATE ON step_log
    FOR EACH STATEMENT EXECUTE FUNCTION notiflow_append_only();

-- The old table's grants, on the new one (the roles of workers/services/roles.py, retention's).
DO $$
DECLARE
    g record;
BEGIN
    FOR g IN
        SELECT grantee, string_agg(privilege_type, ', ') AS privileges
        FROM information_schema.role_table_grants
        WHERE table_schema = 'public' AND table_name = 'step_log_legacy'
          AND grantee <> (SELECT tableowner FROM pg_tables
                          WHERE schemaname = 'public' AND tablename = 'step_log_legacy')
        GROUP BY grantee
    LOOP
        EXECUTE format('GRANT %s ON public.step_log TO %I', g.privileges, g.grantee);
    END LOOP;
END
$$;

SELECT notiflow_step_log_partitions_v1(
    date_trunc('day', statement_timestamp(), 'UTC') + interval '8 days', 1);
"""

# Back: every row into the one table again (the range partitions' rows copied into the old one),
# as it was before this migration.
PARTITION_BEFORE = """
LOCK TABLE step_log IN ACCESS EXCLUSIVE MODE;
ALTER TABLE step_log DETACH PARTITION step_log_legacy;
DROP TRIGGER IF EXISTS step_log_append_only ON step_log_legacy;
ALTER TABLE step_log_legacy DROP CONSTRAINT step_log_legacy_unpartitioned;
INSERT INTO step_log_legacy SELECT * FROM step_log;
SET CONSTRAINTS ALL IMMEDIATE;  -- their checks now: no ALTER TABLE with checks pending
SELECT setval('step_log_legacy_id_seq', last_value, is_called) FROM step_log_id_seq;
DROP TABLE step_log;
ALTER TABLE step_log_legacy RENAME TO step_log;
ALTER SEQUENCE step_log_legacy_id_seq RENAME TO step_log_id_seq;
DO $$
DECLARE
    names text[];
BEGIN
    SELECT array_agg(c.relname::text) INTO names
    FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
    WHERE x.indrelid = 'public.step_log'::regclass;
    FOR i IN 1 .. coalesce(array_length(names, 1), 0) LOOP
        EXECUTE format('ALTER INDEX public.%I RENAME TO %I',
                       names[i], 'step_log' || substr(names[i], length('step_log_legacy') + 1));
    END LOOP;
END
$$;
ALTER TRIGGER step_log_legacy_no_truncate ON step_log RENAME TO step_log_no_truncate;
CREATE TRIGGER step_log_append_only BEFORE UPDATE OR DELETE ON step_log
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();
-- NOT VALID: the rows of runs already purged, kept by a partition that had not yet gone.
ALTER TABLE step_log ADD CONSTRAINT step_log_trigger_id_af2f0676_fk_trigger_instance_id
    FOREIGN KEY (trigger_id) REFERENCES trigger_instance (id) DEFERRABLE INITIALLY DEFERRED
    NOT VALID;
"""


def _transaction(sql: str) -> Callable[[Any, Any], None]:
    """`sql` (several statements) in one transaction of its own; inside a test's transaction, a
    savepoint of it. RunSQL in a non-atomic migration would run each statement on its own."""

    def run(apps, schema_editor) -> None:
        schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    # Three transactions, so that the VALIDATE's scan runs between two short locks.
    atomic = False

    dependencies = [
        ("workers", "0013_purge_push_v2_one_clock"),
        ("deliveries", "0008_funnel_step_sweep"),
        ("triggers", "0028_cancel_retry_replay_functions"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunPython(
                    _transaction(COLUMN), _transaction(COLUMN_BEFORE), atomic=True
                ),
            ],
            state_operations=[
                migrations.AddField(
                    model_name="stepexecutionlog",
                    name="run_created_at",
                    field=models.DateTimeField(editable=False, null=True),
                ),
            ],
        ),
        migrations.RunSQL(VALIDATE, migrations.RunSQL.noop),
        migrations.RunPython(
            _transaction(FUNCTIONS + PURGE + GUARD),
            _transaction(GUARD_BEFORE + PURGE_BEFORE + FUNCTIONS_BEFORE),
            atomic=True,
        ),
        migrations.RunPython(_transaction(PARTITION), _transaction(PARTITION_BEFORE), atomic=True),
    ]
