"""PostgreSQL enforces docs/design/rules.md rule 8: audit rows are never updated or deleted by the application.

The one exception is retention: `manage.py purge_logs` sets `notiflow.retention = on` for its
own transaction, and only DELETE is then allowed. The send ledger may additionally move from
`sending` to `sent` (or count another send while `sending`), and nothing else.
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION notiflow_append_only() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('notiflow.retention', true) = 'on' THEN
        RETURN OLD;
    END IF;
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'send_ledger'
       AND OLD.status = 'sending' AND NEW.status IN ('sending', 'sent')
       AND NEW.trigger_id = OLD.trigger_id AND NEW.node_id = OLD.node_id
       AND NEW.idempotency_key = OLD.idempotency_key THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$ LANGUAGE plpgsql;
"""


def guard(table: str) -> tuple[str, str]:
    return (
        f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();",
        f"DROP TRIGGER IF EXISTS {table}_append_only ON {table};",
    )


class Migration(migrations.Migration):
    dependencies = [("triggers", "0001_initial")]

    operations = [
        migrations.RunSQL(FUNCTION, "DROP FUNCTION IF EXISTS notiflow_append_only() CASCADE;"),
        migrations.RunSQL(*guard("trigger_event")),
        # The hot row of the engine: updated several times per step, so vacuum it early and
        # leave room on the page for HOT updates.
        migrations.RunSQL(
            "ALTER TABLE trigger_instance SET (fillfactor = 80, "
            "autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);",
            "ALTER TABLE trigger_instance RESET (fillfactor, autovacuum_vacuum_scale_factor, "
            "autovacuum_analyze_scale_factor);",
        ),
    ]
