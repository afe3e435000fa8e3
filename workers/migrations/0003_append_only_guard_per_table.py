"""Make notiflow_append_only() refuse with its own message on every table.

The first version tested `OLD.status` in the same expression as `TG_TABLE_NAME = 'send_ledger'`.
PL/pgSQL does not short-circuit that for record fields, so on step_log and trigger_event (which
have no `status`) every refusal was "record "old" has no field "status"" (SQLSTATE 42703) instead
of "<table> is append-only" (42501). The rows were refused all the same; only the reason was
wrong. The ledger rule now sits in its own IF, reached only for send_ledger.
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION notiflow_append_only() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('notiflow.retention', true) = 'on' THEN
        RETURN OLD;
    END IF;
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'send_ledger' THEN
        IF OLD.status = 'sending' AND NEW.status IN ('sending', 'sent')
           AND NEW.trigger_id = OLD.trigger_id AND NEW.node_id = OLD.node_id
           AND NEW.idempotency_key = OLD.idempotency_key THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$ LANGUAGE plpgsql;
"""

PREVIOUS = """
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


class Migration(migrations.Migration):
    dependencies = [("workers", "0002_append_only")]

    operations = [migrations.RunSQL(FUNCTION, PREVIOUS)]
