"""The runs' status events partitioned by their own time (issue 51 §4; docs/reliability/index.md,
"History by partition"), so that retention drops a day of them whole instead of deleting them
row by row: some three rows a step, the largest of the history tables.

- `trigger_event` becomes a table partitioned by RANGE (created_at), the event's own time. Unlike
  the step log (workers migration 0014), no writer changes: the table has no unique key but its
  id, so its partition key need not be the run's, and every one of the some fifteen statements
  and functions that write it already stamps `created_at` with the database's clock.
- The table as it was, rows and indexes, becomes its DEFAULT partition `trigger_event_legacy`,
  with a valid CHECK (created_at < FIRST): FIRST is midnight UTC two days after this migration
  began, where the first range partition starts, so that its rows and any written until then
  stay where they are, and PostgreSQL is spared a scan of it whenever a partition is added.
  Retention deletes its rows as before, row by row, until it is empty.
- The range partitions: one per `span_days` from FIRST, created ahead of time by
  `notiflow_trigger_event_partitions_v1(upto, span_days)` (beat's hourly
  `workers.step_log_partitions`, which makes the step log's too; this migration creates the first
  week). Each has a primary key on `id` and the guard against TRUNCATE.
- When one can go. A run's events are stamped at or after its creation: each is written by a
  statement that sees the run, so began after it (the intake's `created` event is the same
  statement). Allowing MARGIN for a statement stamped before it saw the run, a partition that
  ends at `upper` holds events of runs created before `upper + MARGIN` only; once no such run is
  left it can go. `notiflow_trigger_event_dropping_below_v1(cutoff)` says where the partitions a
  purge of finished runs will drop end (its batches, `notiflow_purge_batch_v3` of workers
  migration 0015, leave those events to the drop); `notiflow_trigger_event_drop_v1(partition,
  cutoff)` drops one. The last range partition is never dropped: the next are made from it.
- No foreign key from an event to its run any more: a partition's rows outlive their runs until
  the partition goes.

Downtime: as for the step log, the conversion takes its locks for a moment and scans nothing but
for the VALIDATE of the CHECK, in a transaction of its own under a lock that lets the workers
write. The CHECK refuses an event stamped at or after FIRST until the table is partitioned, so
the migration must end within a day of its start (the VALIDATE's scan of the table is what takes
time).
"""

import importlib

from django.db import migrations

_STEP_LOG = importlib.import_module("workers.migrations.0014_step_log_partitioned")

# How long before its run's creation an event may be stamped (above): a statement that waited
# this long to see a run it had begun before would be one that held its locks for an hour. A
# run's reads start its events there too (triggers.models.EVENTS_BEFORE_RUN).
MARGIN_SECONDS = 3600
MARGIN = f"interval '{MARGIN_SECONDS} seconds'"

# 1. The CHECK that the rows so far (and any written before FIRST) are older than FIRST; NOT
# VALID: no scan, no long lock.
COLUMN = """
DO $$
BEGIN
    EXECUTE format('ALTER TABLE public.trigger_event ADD CONSTRAINT trigger_event_legacy_before'
                   ' CHECK (created_at < %L) NOT VALID',
                   date_trunc('day', statement_timestamp(), 'UTC') + interval '2 days');
END
$$;
"""
COLUMN_BEFORE = "ALTER TABLE trigger_event DROP CONSTRAINT IF EXISTS trigger_event_legacy_before;"

# 2. The scan, while the workers go on writing.
VALIDATE = "ALTER TABLE trigger_event VALIDATE CONSTRAINT trigger_event_legacy_before;"

# The step log's list of range partitions, for this table.
_RANGES = _STEP_LOG.FUNCTIONS[
    : _STEP_LOG.FUNCTIONS.index("-- SECURITY DEFINER: beat's task runs on a worker")
]
RANGES = _RANGES.replace("step_log", "trigger_event").replace("step log''s", "run events''")
assert RANGES.count("trigger_event") == 3 and "step" not in RANGES, RANGES

FUNCTIONS = (
    RANGES
    + """
-- SECURITY DEFINER: beat's task runs on a worker, whose role owns no table (workers/services/
-- roles.py); EXECUTE is granted to it there. The first partition is this migration's.
CREATE FUNCTION notiflow_trigger_event_partitions_v1(upto timestamptz, span_days integer)
RETURNS SETOF text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    bound timestamptz;
BEGIN
    IF span_days < 1 THEN
        RAISE EXCEPTION 'a partition spans at least one day, not %', span_days;
    END IF;
    SELECT max(r.upper_bound) INTO bound FROM public.notiflow_trigger_event_ranges_v1() AS r;
    IF bound IS NULL THEN
        RAISE EXCEPTION 'trigger_event has no range partition to follow';
    END IF;
    WHILE bound < upto LOOP
        RETURN NEXT public.notiflow_trigger_event_partition_v1(
            bound, bound + make_interval(days => span_days));
        bound := bound + make_interval(days => span_days);
    END LOOP;
END
$$;
COMMENT ON FUNCTION notiflow_trigger_event_partitions_v1(timestamptz, integer) IS
    'Creates the run events'' partitions up to a time; their names. workers/services/history.py';

-- One partition, named by the day it starts: its name.
CREATE FUNCTION notiflow_trigger_event_partition_v1(lower_bound timestamptz,
                                                    upper_bound timestamptz) RETURNS text
LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
DECLARE
    name text := 'trigger_event_p' || to_char(lower_bound AT TIME ZONE 'UTC', 'YYYYMMDD');
BEGIN
    EXECUTE format('CREATE TABLE public.%I PARTITION OF public.trigger_event'
                   ' FOR VALUES FROM (%L) TO (%L)', name, lower_bound, upper_bound);
    -- What a partitioned table cannot declare for its partitions: a key without its partition
    -- column. The id comes from one sequence, so it is unique over the whole table.
    EXECUTE format('ALTER TABLE public.%I ADD PRIMARY KEY (id)', name);
    EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON public.%I'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION public.notiflow_append_only()',
                   name || '_no_truncate', name);
    RETURN name;
END
$$;

CREATE FUNCTION notiflow_trigger_event_dropping_below_v1(cutoff timestamptz) RETURNS timestamptz
LANGUAGE sql STABLE SET search_path = pg_catalog, public AS $$
    SELECT max(r.upper_bound) FROM public.notiflow_trigger_event_ranges_v1() AS r
    WHERE r.upper_bound <= cutoff
      AND r.upper_bound + MARGIN <= coalesce(
          (SELECT min(t.created_at) FROM public.trigger_instance t
           WHERE NOT public.notiflow_purge_finished_v1(t.status, t.created_at, t.completed_at,
                                                       cutoff)),
          'infinity')
$$;
COMMENT ON FUNCTION notiflow_trigger_event_dropping_below_v1(timestamptz) IS
    'Where the run event partitions that a purge of finished runs will drop end (NULL: none). '
    'workers/sql.py';

CREATE FUNCTION notiflow_trigger_event_drop_v1(name text, cutoff timestamptz)
RETURNS bigint
LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
DECLARE
    range record;
    dropped bigint;
BEGIN
    SELECT * INTO range FROM public.notiflow_trigger_event_ranges_v1() AS r
    WHERE r.partition = name;
    IF NOT FOUND OR range.upper_bound > cutoff THEN
        RETURN NULL;
    END IF;
    -- Never the last: the next partitions are made from where it ends.
    IF range.upper_bound = (SELECT max(r.upper_bound)
                            FROM public.notiflow_trigger_event_ranges_v1() AS r) THEN
        RETURN NULL;
    END IF;
    -- Its rows are of runs created before its end and MARGIN: once none is left, none comes
    -- back (a run is created at the statement's time), and no event can be written there.
    IF EXISTS (SELECT 1 FROM public.trigger_instance t
               WHERE t.created_at < range.upper_bound + MARGIN) THEN
        RETURN NULL;
    END IF;
    EXECUTE format('SELECT count(*) FROM public.%I', name) INTO dropped;
    EXECUTE format('DROP TABLE public.%I', name);
    RETURN dropped;
END
$$;
COMMENT ON FUNCTION notiflow_trigger_event_drop_v1(text, timestamptz) IS
    'Drops a run event partition past the cutoff whose runs are all gone; its rows, or NULL. '
    'workers/services/history.py';
REVOKE EXECUTE ON FUNCTION notiflow_trigger_event_drop_v1(text, timestamptz) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION notiflow_trigger_event_partitions_v1(timestamptz, integer)
    FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION notiflow_trigger_event_partition_v1(timestamptz, timestamptz)
    FROM PUBLIC;
""".replace("MARGIN", MARGIN)
)

FUNCTIONS_BEFORE = """
DROP FUNCTION IF EXISTS notiflow_trigger_event_drop_v1(text, timestamptz);
DROP FUNCTION IF EXISTS notiflow_trigger_event_dropping_below_v1(timestamptz);
DROP FUNCTION IF EXISTS notiflow_trigger_event_partitions_v1(timestamptz, integer);
DROP FUNCTION IF EXISTS notiflow_trigger_event_partition_v1(timestamptz, timestamptz);
DROP FUNCTION IF EXISTS notiflow_trigger_event_ranges_v1();
"""


# The step log's copy of the old table's grants onto the new one, for this table.
_GRANTS = _STEP_LOG.PARTITION
GRANTS = _GRANTS[
    _GRANTS.index("-- The old table's grants") : _GRANTS.index(
        "SELECT notiflow_step_log_partitions_v1("
    )
].replace("step_log", "trigger_event")

# 3. The table as it was becomes the DEFAULT partition of a partitioned `trigger_event`: catalog
# changes only, under a lock held for as long as they take.
PARTITION = (
    """
LOCK TABLE trigger_event IN ACCESS EXCLUSIVE MODE;
ALTER TABLE trigger_event RENAME TO trigger_event_legacy;
ALTER SEQUENCE trigger_event_id_seq RENAME TO trigger_event_legacy_id_seq;
DO $$
DECLARE
    fk text;
BEGIN
    FOR fk IN SELECT conname FROM pg_constraint
              WHERE conrelid = 'public.trigger_event_legacy'::regclass AND contype = 'f'
    LOOP
        EXECUTE format('ALTER TABLE public.trigger_event_legacy DROP CONSTRAINT %I', fk);
    END LOOP;
END
$$;
DROP TRIGGER trigger_event_append_only ON trigger_event_legacy;
ALTER TRIGGER trigger_event_no_truncate ON trigger_event_legacy
    RENAME TO trigger_event_legacy_no_truncate;

CREATE TABLE trigger_event (LIKE trigger_event_legacy INCLUDING DEFAULTS)
    PARTITION BY RANGE (created_at);
CREATE SEQUENCE trigger_event_id_seq OWNED BY trigger_event.id;
SELECT setval('trigger_event_id_seq', last_value, is_called) FROM trigger_event_legacy_id_seq;
ALTER TABLE trigger_event ALTER COLUMN id SET DEFAULT nextval('trigger_event_id_seq');

-- The index on (trigger_id, created_at) becomes the partition's share of the same index of the
-- partitioned table, under the old name (the primary key stays the partition's own).
ALTER INDEX trigger_event_trigger_idx RENAME TO trigger_event_legacy_trigger_idx;
ALTER INDEX trigger_event_pkey RENAME TO trigger_event_legacy_pkey;
CREATE INDEX trigger_event_trigger_idx ON ONLY trigger_event (trigger_id, created_at);
ALTER TABLE trigger_event ATTACH PARTITION trigger_event_legacy DEFAULT;
ALTER INDEX trigger_event_trigger_idx ATTACH PARTITION trigger_event_legacy_trigger_idx;

CREATE TRIGGER trigger_event_append_only BEFORE UPDATE OR DELETE ON trigger_event
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();
CREATE TRIGGER trigger_event_no_truncate BEFORE TRUNCATE ON trigger_event
    FOR EACH STATEMENT EXECUTE FUNCTION notiflow_append_only();

"""
    + GRANTS
    + """
-- And its sequence's (the web role writes events through the ORM).
DO $$
DECLARE
    g record;
BEGIN
    FOR g IN
        SELECT grantee, string_agg(privilege_type, ', ') AS privileges
        FROM information_schema.usage_privileges
        WHERE object_schema = 'public' AND object_name = 'trigger_event_legacy_id_seq'
          AND object_type = 'SEQUENCE' AND grantee <> grantor
        GROUP BY grantee
    LOOP
        EXECUTE format('GRANT %s ON SEQUENCE public.trigger_event_id_seq TO %I',
                       g.privileges, g.grantee);
    END LOOP;
END
$$;

-- The first range partition starts where the DEFAULT partition's CHECK ends.
DO $$
DECLARE
    first timestamptz;
BEGIN
    SELECT (regexp_match(pg_get_constraintdef(c.oid), '''([^'']+)'''))[1]::timestamptz
    INTO STRICT first
    FROM pg_constraint c
    WHERE c.conrelid = 'public.trigger_event_legacy'::regclass
      AND c.conname = 'trigger_event_legacy_before';
    PERFORM notiflow_trigger_event_partition_v1(first, first + interval '1 day');
END
$$;
SELECT notiflow_trigger_event_partitions_v1(
    date_trunc('day', statement_timestamp(), 'UTC') + interval '8 days', 1);
"""
)

# Back: every row into the one table again (the range partitions' rows copied into the old one),
# as it was before this migration.
PARTITION_BEFORE = """
LOCK TABLE trigger_event IN ACCESS EXCLUSIVE MODE;
ALTER TABLE trigger_event DETACH PARTITION trigger_event_legacy;
ALTER TABLE trigger_event_legacy DROP CONSTRAINT trigger_event_legacy_before;
INSERT INTO trigger_event_legacy OVERRIDING SYSTEM VALUE SELECT * FROM trigger_event;
SELECT setval('trigger_event_legacy_id_seq', last_value, is_called) FROM trigger_event_id_seq;
DROP TABLE trigger_event;
ALTER TABLE trigger_event_legacy RENAME TO trigger_event;
ALTER SEQUENCE trigger_event_legacy_id_seq RENAME TO trigger_event_id_seq;
ALTER INDEX trigger_event_legacy_trigger_idx RENAME TO trigger_event_trigger_idx;
ALTER INDEX trigger_event_legacy_pkey RENAME TO trigger_event_pkey;
ALTER TRIGGER trigger_event_legacy_no_truncate ON trigger_event RENAME TO trigger_event_no_truncate;
CREATE TRIGGER trigger_event_append_only BEFORE UPDATE OR DELETE ON trigger_event
    FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();
-- NOT VALID: the rows of runs already purged, kept by a partition that had not yet gone.
ALTER TABLE trigger_event ADD CONSTRAINT trigger_event_trigger_id_fdcec258_fk_trigger_instance_id
    FOREIGN KEY (trigger_id) REFERENCES trigger_instance (id) DEFERRABLE INITIALLY DEFERRED
    NOT VALID;
"""


class Migration(migrations.Migration):
    # Three transactions, so that the VALIDATE's scan runs between two short locks.
    atomic = False

    dependencies = [
        ("workers", "0014_step_log_partitioned"),
        ("triggers", "0029_release_v6_step_log_run_created"),
    ]

    operations = [
        migrations.RunPython(
            _STEP_LOG._transaction(COLUMN), _STEP_LOG._transaction(COLUMN_BEFORE), atomic=True
        ),
        migrations.RunSQL(VALIDATE, migrations.RunSQL.noop),
        migrations.RunPython(
            _STEP_LOG._transaction(FUNCTIONS), _STEP_LOG._transaction(FUNCTIONS_BEFORE), atomic=True
        ),
        migrations.RunPython(
            _STEP_LOG._transaction(PARTITION), _STEP_LOG._transaction(PARTITION_BEFORE), atomic=True
        ),
    ]
