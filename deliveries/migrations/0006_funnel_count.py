"""The engagement funnel's rollup (issue 49 §3, docs/funnel.md): `funnel_count`, kept by two
row triggers on the facts as they are inserted, so that a workflow's funnel over a day sums a
few hundred rows instead of reading its 100,000 step logs and their reports.

- `step_log_funnel` counts a step whose recorded decision (workflows.decisions, in the step log's
  output) is `sent`, `skipped` or `failed`: once per step log, under its node type, which for a
  sending node is its channel (the claim writes the same into send_ledger.channel;
  tests/deliveries/test_funnel.py checks the registry keeps it so). A node that sends nothing
  and fails is counted too, under its type; the reader keeps channels only.
- `delivery_event_funnel` counts a provider's report `delivered`, `opened`, `clicked`,
  `bounced`, `complained` or `unsubscribed`, the first of its kind for its message only (a
  second open is the same opened message), under the advisory lock of the message so that two
  reports arriving at once cannot both be first.

Both count in the hour (UTC) the send began: its send ledger row's `created_at` (the claim's
clock, committed before the provider is called, so a report can never arrive before it), else
the step's `started_at` (a skip or an in-app message has no ledger row). So a message's later
reports land in the hour it was sent, and the rates of a window are of the same messages.

Each counter is spread over 16 rows per hour (`slot`: the connection's pid modulo 16): the
release of every worker sending for the same node in the same hour would otherwise wait on one
row lock until the other's commit. Both functions are SECURITY DEFINER: the worker role writes
step logs through the release function and the web role reports, neither writes funnel_count.
The counts already in step_log and delivery_event are added once, here.
"""

import django.db.models.deletion
from django.db import migrations, models

FUNCTIONS = """
CREATE FUNCTION notiflow_funnel_step_v1() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    began timestamptz;
BEGIN
    SELECT l.created_at INTO began FROM public.send_ledger l
    WHERE l.trigger_id = NEW.trigger_id AND l.node_id = NEW.node_id;
    INSERT INTO public.funnel_count AS f
        (workflow_id, hour, node_id, channel, outcome, tenant, slot, count)
    VALUES (NEW.workflow_id, date_trunc('hour', COALESCE(began, NEW.started_at), 'UTC'),
            NEW.node_id, NEW.node_type, NEW.output -> 'decision' ->> 'decision', '',
            pg_backend_pid() % 16, 1)
    ON CONFLICT ON CONSTRAINT funnel_count_once DO UPDATE SET count = f.count + 1;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION notiflow_funnel_step_v1() FROM PUBLIC;
CREATE TRIGGER step_log_funnel AFTER INSERT ON step_log FOR EACH ROW
    WHEN (NEW.output -> 'decision' ->> 'decision' IN ('sent', 'skipped', 'failed'))
    EXECUTE FUNCTION notiflow_funnel_step_v1();

CREATE FUNCTION notiflow_funnel_delivery_v1() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    began timestamptz;
    workflow integer;
    mine xid;
BEGIN
    -- The message's send, locked: a second report about it waits here for the first's commit,
    -- then sees it below (each statement of a function reads the newest commits).
    SELECT l.created_at, t.workflow_id INTO began, workflow
    FROM public.send_ledger l JOIN public.trigger_instance t ON t.id = l.trigger_id
    WHERE l.trigger_id = NEW.trigger_id AND l.node_id = NEW.node_id
    FOR NO KEY UPDATE OF l;
    IF workflow IS NULL THEN
        RETURN NULL;  -- its run was purged meanwhile: it is counted nowhere
    END IF;
    -- Counted already: by another transaction (committed, since its report is seen), or by an
    -- earlier row of this one (rows of one statement all see each other: the first counts).
    SELECT xmin INTO mine FROM public.delivery_event WHERE id = NEW.id;
    IF EXISTS (SELECT 1 FROM public.delivery_event d
               WHERE d.trigger_id = NEW.trigger_id AND d.node_id = NEW.node_id
                 AND d.event = NEW.event AND d.id <> NEW.id
                 AND (d.id < NEW.id OR d.xmin <> mine)) THEN
        RETURN NULL;
    END IF;
    INSERT INTO public.funnel_count AS f
        (workflow_id, hour, node_id, channel, outcome, tenant, slot, count)
    VALUES (workflow, date_trunc('hour', began, 'UTC'), NEW.node_id, NEW.channel, NEW.event, '',
            pg_backend_pid() % 16, 1)
    ON CONFLICT ON CONSTRAINT funnel_count_once DO UPDATE SET count = f.count + 1;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION notiflow_funnel_delivery_v1() FROM PUBLIC;
CREATE TRIGGER delivery_event_funnel AFTER INSERT ON delivery_event FOR EACH ROW
    WHEN (NEW.event IN ('delivered', 'opened', 'clicked', 'bounced', 'complained',
                        'unsubscribed'))
    EXECUTE FUNCTION notiflow_funnel_delivery_v1();
"""

BACKFILL = """
INSERT INTO funnel_count (workflow_id, hour, node_id, channel, outcome, tenant, slot, count)
SELECT s.workflow_id, date_trunc('hour', COALESCE(l.created_at, s.started_at), 'UTC'), s.node_id,
       s.node_type, s.output -> 'decision' ->> 'decision', '', 0, count(*)
FROM step_log s
LEFT JOIN send_ledger l ON l.trigger_id = s.trigger_id AND l.node_id = s.node_id
WHERE s.output -> 'decision' ->> 'decision' IN ('sent', 'skipped', 'failed')
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO funnel_count (workflow_id, hour, node_id, channel, outcome, tenant, slot, count)
SELECT t.workflow_id, date_trunc('hour', l.created_at, 'UTC'), d.node_id, d.channel, d.event, '',
       0, count(DISTINCT d.trigger_id)
FROM delivery_event d
JOIN send_ledger l ON l.trigger_id = d.trigger_id AND l.node_id = d.node_id
JOIN trigger_instance t ON t.id = d.trigger_id
WHERE d.event IN ('delivered', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed')
GROUP BY 1, 2, 3, 4, 5;
"""

DROP = """
DROP TRIGGER IF EXISTS delivery_event_funnel ON delivery_event;
DROP FUNCTION IF EXISTS notiflow_funnel_delivery_v1();
DROP TRIGGER IF EXISTS step_log_funnel ON step_log;
DROP FUNCTION IF EXISTS notiflow_funnel_step_v1();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("deliveries", "0005_suppression_generation"),
        ("workflows", "0003_version_message"),
        ("workers", "0013_purge_push_v2_one_clock"),
        ("triggers", "0023_fanout_runs_insert_function"),
    ]

    operations = [
        migrations.CreateModel(
            name="FunnelCount",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("hour", models.DateTimeField()),
                ("node_id", models.CharField(max_length=100)),
                ("channel", models.CharField(max_length=16)),
                ("outcome", models.CharField(max_length=16)),
                ("tenant", models.CharField(blank=True, db_default="", max_length=100)),
                ("slot", models.SmallIntegerField()),
                ("count", models.BigIntegerField()),
                (
                    "workflow",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="workflows.workflow",
                    ),
                ),
            ],
            options={
                "db_table": "funnel_count",
                "constraints": [
                    models.UniqueConstraint(
                        fields=("workflow", "hour", "node_id", "channel", "outcome", "tenant", "slot"),
                        name="funnel_count_once",
                    )
                ],
            },
        ),
        migrations.RunSQL(FUNCTIONS, DROP),
        migrations.RunSQL(BACKFILL, migrations.RunSQL.noop),
    ]
