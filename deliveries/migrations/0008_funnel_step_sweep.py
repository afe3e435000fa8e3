"""The steps' share of the funnel counted by a sweep, off the step's transaction (issue 51 §1,
docs/funnel.md, "How it stays fast").

Until now a row trigger on step_log (`step_log_funnel`, `notiflow_funnel_step_v2`) added 1 to
`funnel_count` for every sending step inside the release's transaction: +0.12-0.16 ms of
PostgreSQL CPU per step. Here:

- `step_log.txid` (xid8), filled by its default `pg_current_xact_id()`: the id of the
  transaction that wrote the row (its top-level one). Added without a default first and given it
  after, so no existing row is rewritten or gets one: the rows already there were counted by the
  trigger and stay NULL, outside every sweep. Indexed for the sending steps only
  (`step_log_funnel_txid`), the rows the sweep reads.
- `funnel_sweep`, one row: the watermark `swept_below`. Every step log whose txid is below it is
  counted in funnel_count, none at or above it. It starts at 0: every row with a txid was
  written after this migration and counted by nothing.
- `notiflow_funnel_steps_v1(low, high, workflow)`: what the step logs with a txid in
  [low, high) (high NULL: no bound) add to the rollup, grouped as funnel_count is; the one
  statement that maps a step log to its count (the trigger's: the hour its send began, its node
  type as the channel, its decision, the tenant of its own input). STABLE, so it reads the
  snapshot of the statement that calls it.
- `notiflow_funnel_sweep_v1()`: takes the watermark's row lock (another sweep holding it: this
  one returns 0), then in one statement counts the step logs in [mark, xmin) and moves the mark
  to xmin, where xmin is `pg_snapshot_xmin(pg_current_snapshot())` of that statement: the oldest
  transaction still running. A transaction below it has ended, so its rows are committed and in
  this snapshot or rolled back and in none, and none can appear later; a transaction at or above
  it may still commit rows, whatever their ids, and waits for a later sweep. Rollup and mark
  move in one transaction: a sweep killed before its commit counted nothing and moved nothing.

The trigger goes in the same transaction as the column comes: ALTER TABLE waits for every
transaction that inserted step logs (counted by the trigger, or rolled back), and every step log
inserted after it has a txid and no trigger. Reversed, the unswept step logs are counted (under
a lock that waits out their writers) before the trigger is back.
"""

import importlib

import deliveries.models
from django.db import migrations, models

# Reversed: the step trigger of 0007 again.
V2_STEP = importlib.import_module("deliveries.migrations.0007_funnel_tenant_and_inbox").FUNCTIONS
V2_STEP = V2_STEP[: V2_STEP.index("CREATE FUNCTION notiflow_funnel_delivery_v2()")]
V2_STEP = V2_STEP.replace("DROP TRIGGER step_log_funnel ON step_log;\n", "").replace(
    "DROP FUNCTION notiflow_funnel_step_v1();\n", ""
)

FORWARD = """
ALTER TABLE step_log ADD COLUMN txid xid8;
ALTER TABLE step_log ALTER COLUMN txid SET DEFAULT pg_current_xact_id();
DROP TRIGGER step_log_funnel ON step_log;
DROP FUNCTION notiflow_funnel_step_v2();
CREATE INDEX step_log_funnel_txid ON step_log (txid)
    WHERE txid IS NOT NULL
      AND (output -> 'decision' ->> 'decision') IN ('sent', 'skipped', 'failed');
INSERT INTO funnel_sweep (id, swept_below, swept_at) VALUES (1, '0', NULL);

CREATE FUNCTION notiflow_funnel_steps_v1(low xid8, high xid8, workflow bigint)
RETURNS TABLE (workflow_id bigint, hour timestamptz, node_id text, channel text, outcome text,
               tenant text, count bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
    -- EXECUTE: planned for these bounds each time (a generic plan cannot tell a tail of a few
    -- rows from the whole table).
    RETURN QUERY EXECUTE $q$
        SELECT s.workflow_id, date_trunc('hour', COALESCE(l.created_at, s.started_at), 'UTC'),
               s.node_id::text, s.node_type::text, s.output -> 'decision' ->> 'decision',
               COALESCE(s.input -> 'tenant' ->> 'id', ''), count(*)
        FROM public.step_log s
        LEFT JOIN public.send_ledger l ON l.trigger_id = s.trigger_id AND l.node_id = s.node_id
        WHERE s.txid >= $1 AND ($2 IS NULL OR s.txid < $2)
          AND ($3 IS NULL OR s.workflow_id = $3)
          AND (s.output -> 'decision' ->> 'decision') IN ('sent', 'skipped', 'failed')
        GROUP BY 1, 2, 3, 4, 5, 6
    $q$ USING low, high, workflow;
END
$$;
REVOKE EXECUTE ON FUNCTION notiflow_funnel_steps_v1(xid8, xid8, bigint) FROM PUBLIC;

CREATE FUNCTION notiflow_funnel_sweep_v1() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    low xid8;
    counted bigint;
BEGIN
    -- One sweep at a time: one that finds the mark locked leaves the work to its holder.
    SELECT w.swept_below INTO low FROM public.funnel_sweep w WHERE w.id = 1
    FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    -- A statement of its own, so a snapshot taken after the lock: the last sweep's commit is
    -- in it. Its xmin is the high mark; the step logs are read in the same snapshot.
    WITH mark AS (
        SELECT GREATEST(low, pg_snapshot_xmin(pg_current_snapshot())) AS high
    ), steps AS (
        SELECT s.* FROM mark, public.notiflow_funnel_steps_v1(low, mark.high, NULL) s
    ), rolled AS (
        INSERT INTO public.funnel_count AS f
            (workflow_id, hour, node_id, channel, outcome, tenant, slot, count)
        SELECT s.workflow_id, s.hour, s.node_id, s.channel, s.outcome, s.tenant, 0, s.count
        FROM steps s
        ON CONFLICT ON CONSTRAINT funnel_count_once DO UPDATE SET count = f.count + EXCLUDED.count
    ), moved AS (
        UPDATE public.funnel_sweep w SET swept_below = mark.high, swept_at = statement_timestamp()
        FROM mark WHERE w.id = 1
    )
    SELECT COALESCE(sum(s.count), 0) INTO counted FROM steps s;
    RETURN counted;
END
$$;
REVOKE EXECUTE ON FUNCTION notiflow_funnel_sweep_v1() FROM PUBLIC;
"""

# Reversed: what no sweep counted yet is counted here, once every writer of a step log is done
# (the SHARE lock waits for them and holds off new ones), then the trigger is back.
BACKWARD = (
    """
LOCK TABLE step_log IN SHARE MODE;
INSERT INTO funnel_count AS f (workflow_id, hour, node_id, channel, outcome, tenant, slot, count)
SELECT s.workflow_id, s.hour, s.node_id, s.channel, s.outcome, s.tenant, 0, s.count
FROM funnel_sweep w, notiflow_funnel_steps_v1(w.swept_below, NULL, NULL) s
ON CONFLICT ON CONSTRAINT funnel_count_once DO UPDATE SET count = f.count + EXCLUDED.count;
DROP FUNCTION notiflow_funnel_sweep_v1();
DROP FUNCTION notiflow_funnel_steps_v1(xid8, xid8, bigint);
DELETE FROM funnel_sweep;
DROP INDEX step_log_funnel_txid;
ALTER TABLE step_log DROP COLUMN txid;
"""
    + V2_STEP
)


class Migration(migrations.Migration):
    dependencies = [
        ("deliveries", "0007_funnel_tenant_and_inbox"),
        ("workers", "0013_purge_push_v2_one_clock"),
    ]

    operations = [
        migrations.CreateModel(
            name="FunnelSweep",
            fields=[
                ("id", models.SmallIntegerField(default=1, primary_key=True, serialize=False)),
                ("swept_below", deliveries.models.TransactionIdField()),
                ("swept_at", models.DateTimeField(null=True)),
            ],
            options={
                "db_table": "funnel_sweep",
                "constraints": [
                    models.CheckConstraint(condition=models.Q(("id", 1)), name="funnel_sweep_one")
                ],
            },
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
