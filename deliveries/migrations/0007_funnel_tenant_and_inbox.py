"""The engagement funnel by tenant, and in-app messages' seen and read marks in it (issue 48 §3,
issue 49 §3; docs/funnel.md, "Tenants" and "In-app messages").

- `notiflow_funnel_step_v2` counts a step as v1 did, under the run's tenant: the `tenant.id` of
  the step log's own `input` (the context the step saw keeps its tenant whole,
  workflows.semantics.step_input), so the row being inserted says it and no statement is added
  to any step.
- `notiflow_funnel_delivery_v2` counts a report as v1 did, under the run's tenant, read from the
  run's row v1 already joined for its workflow: no statement added either.
- `notiflow_funnel_inbox_v1` counts an in-app message `delivered` when it is first seen and
  `opened` when it is first read (`first_read_at`, inbox migration 0003, which marking it unread
  leaves: a message read twice is opened once). Seen and read are set at most once each, so each
  counts once without a lock. It reads the step log that stored the message (one index probe per
  mark, a person's click, not a step): its workflow, its hour (as the step was counted) and its
  tenant.

Counts made before this migration stay under no tenant (''): counting them again would need the
step logs and reports that retention may have purged. The in-app marks already stored are
counted once, here.
"""

import importlib

from django.db import migrations

# Reversed: v1 of each again, as 0006 made them (no tenant, no in-app marks).
V1 = importlib.import_module("deliveries.migrations.0006_funnel_count").FUNCTIONS

FUNCTIONS = """
CREATE FUNCTION notiflow_funnel_step_v2() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    began timestamptz;
BEGIN
    SELECT l.created_at INTO began FROM public.send_ledger l
    WHERE l.trigger_id = NEW.trigger_id AND l.node_id = NEW.node_id;
    INSERT INTO public.funnel_count AS f
        (workflow_id, hour, node_id, channel, outcome, tenant, slot, count)
    VALUES (NEW.workflow_id, date_trunc('hour', COALESCE(began, NEW.started_at), 'UTC'),
            NEW.node_id, NEW.node_type, NEW.output -> 'decision' ->> 'decision',
            COALESCE(NEW.input -> 'tenant' ->> 'id', ''), pg_backend_pid() % 16, 1)
    ON CONFLICT ON CONSTRAINT funnel_count_once DO UPDATE SET count = f.count + 1;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION notiflow_funnel_step_v2() FROM PUBLIC;
DROP TRIGGER step_log_funnel ON step_log;
CREATE TRIGGER step_log_funnel AFTER INSERT ON step_log FOR EACH ROW
    WHEN (NEW.output -> 'decision' ->> 'decision' IN ('sent', 'skipped', 'failed'))
    EXECUTE FUNCTION notiflow_funnel_step_v2();
DROP FUNCTION notiflow_funnel_step_v1();

CREATE FUNCTION notiflow_funnel_delivery_v2() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    began timestamptz;
    workflow integer;
    run_tenant text;
    mine xid;
BEGIN
    -- The message's send, locked: a second report about it waits here for the first's commit,
    -- then sees it below (each statement of a function reads the newest commits).
    SELECT l.created_at, t.workflow_id, t.tenant INTO began, workflow, run_tenant
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
    VALUES (workflow, date_trunc('hour', began, 'UTC'), NEW.node_id, NEW.channel, NEW.event,
            COALESCE(run_tenant, ''), pg_backend_pid() % 16, 1)
    ON CONFLICT ON CONSTRAINT funnel_count_once DO UPDATE SET count = f.count + 1;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION notiflow_funnel_delivery_v2() FROM PUBLIC;
DROP TRIGGER delivery_event_funnel ON delivery_event;
CREATE TRIGGER delivery_event_funnel AFTER INSERT ON delivery_event FOR EACH ROW
    WHEN (NEW.event IN ('delivered', 'opened', 'clicked', 'bounced', 'complained',
                        'unsubscribed'))
    EXECUTE FUNCTION notiflow_funnel_delivery_v2();
DROP FUNCTION notiflow_funnel_delivery_v1();

CREATE FUNCTION notiflow_funnel_inbox_v1() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    step record;
BEGIN
    -- The step that stored the message: its workflow, the hour it was counted in (as
    -- notiflow_funnel_step_v2 counted it) and its run's tenant.
    SELECT s.workflow_id, s.node_type,
           date_trunc('hour', COALESCE(l.created_at, s.started_at), 'UTC') AS hour,
           COALESCE(s.input -> 'tenant' ->> 'id', '') AS tenant
    INTO step
    FROM public.step_log s
    LEFT JOIN public.send_ledger l ON l.trigger_id = s.trigger_id AND l.node_id = s.node_id
    WHERE s.trigger_id = NEW.trigger_id AND s.node_id = NEW.node_id
      AND s.output -> 'decision' ->> 'decision' = 'sent'
    ORDER BY s.attempt DESC LIMIT 1;
    IF NOT FOUND THEN
        RETURN NULL;  -- its run was purged: it is counted nowhere
    END IF;
    INSERT INTO public.funnel_count AS f
        (workflow_id, hour, node_id, channel, outcome, tenant, slot, count)
    SELECT step.workflow_id, step.hour, NEW.node_id, step.node_type, outcome, step.tenant,
           pg_backend_pid() % 16, 1
    FROM (VALUES ('delivered', OLD.seen_at IS NULL AND NEW.seen_at IS NOT NULL),
                 ('opened', OLD.first_read_at IS NULL AND NEW.first_read_at IS NOT NULL))
         AS marked (outcome, happened)
    WHERE happened
    ON CONFLICT ON CONSTRAINT funnel_count_once DO UPDATE SET count = f.count + 1;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION notiflow_funnel_inbox_v1() FROM PUBLIC;
CREATE TRIGGER inbox_message_funnel AFTER UPDATE OF seen_at, first_read_at ON inbox_message
    FOR EACH ROW
    WHEN ((OLD.seen_at IS NULL AND NEW.seen_at IS NOT NULL)
          OR (OLD.first_read_at IS NULL AND NEW.first_read_at IS NOT NULL))
    EXECUTE FUNCTION notiflow_funnel_inbox_v1();
"""

BACKFILL = """
INSERT INTO funnel_count AS f (workflow_id, hour, node_id, channel, outcome, tenant, slot, count)
SELECT s.workflow_id, date_trunc('hour', COALESCE(l.created_at, s.started_at), 'UTC'), m.node_id,
       s.node_type, marked.outcome, COALESCE(s.input -> 'tenant' ->> 'id', ''), 0, count(*)
FROM inbox_message m
JOIN LATERAL (SELECT * FROM step_log s
              WHERE s.trigger_id = m.trigger_id AND s.node_id = m.node_id
                AND s.output -> 'decision' ->> 'decision' = 'sent'
              ORDER BY s.attempt DESC LIMIT 1) s ON true
LEFT JOIN send_ledger l ON l.trigger_id = s.trigger_id AND l.node_id = s.node_id
CROSS JOIN LATERAL (VALUES ('delivered', m.seen_at IS NOT NULL),
                           ('opened', m.first_read_at IS NOT NULL)) AS marked (outcome, happened)
WHERE marked.happened
GROUP BY 1, 2, 3, 4, 5, 6
ON CONFLICT ON CONSTRAINT funnel_count_once DO UPDATE SET count = f.count + EXCLUDED.count;
"""

DROP = """
DROP TRIGGER IF EXISTS inbox_message_funnel ON inbox_message;
DROP FUNCTION IF EXISTS notiflow_funnel_inbox_v1();
DROP TRIGGER IF EXISTS delivery_event_funnel ON delivery_event;
DROP FUNCTION IF EXISTS notiflow_funnel_delivery_v2();
DROP TRIGGER IF EXISTS step_log_funnel ON step_log;
DROP FUNCTION IF EXISTS notiflow_funnel_step_v2();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("deliveries", "0006_funnel_count"),
        ("inbox", "0003_first_read_at"),
        ("triggers", "0026_trigger_tenant"),
    ]

    operations = [
        migrations.RunSQL(FUNCTIONS, DROP + V1),
        migrations.RunSQL(BACKFILL, migrations.RunSQL.noop),
    ]
