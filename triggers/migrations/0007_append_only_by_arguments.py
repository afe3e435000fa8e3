"""The append-only guard, reworked (docs/design/rules.md rule 8, docs/security/index.md):

- It knows no table: a table whose rows may change in one way says so in its trigger's
  arguments (the column, the value OLD must have, the values NEW may take, the columns that must
  not change). The send ledger's rule now lives with the send ledger (workers 0005).
- Its escape hatch was a setting any session could turn on (`SET LOCAL notiflow.retention`).
  Now only the role `notiflow_retention` may delete, and nobody logs in as it: it owns the
  retention function (workers 0005), which deletes finished triggers' rows and nothing else.
- TRUNCATE is refused too (a statement trigger: TRUNCATE fires no row trigger).

Creating the role needs CREATEROLE (the superuser in development and tests); where the
migrating user lacks it, a DBA creates it first: CREATE ROLE notiflow_retention NOLOGIN.
"""

from django.db import migrations

ROLE = """
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'notiflow_retention') THEN
        CREATE ROLE notiflow_retention NOLOGIN;
    END IF;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE EXCEPTION 'the role notiflow_retention is missing and % may not create it: '
        'run CREATE ROLE notiflow_retention NOLOGIN as a superuser, then migrate again',
        current_user;
END
$$;
"""

FUNCTION = """
CREATE OR REPLACE FUNCTION notiflow_append_only() RETURNS trigger AS $$
DECLARE
    old_row jsonb;
    new_row jsonb;
BEGIN
    IF TG_OP = 'DELETE' AND current_user = 'notiflow_retention' THEN
        RETURN OLD;
    END IF;
    -- One kind of UPDATE, when the table's trigger allows it by its four arguments.
    IF TG_OP = 'UPDATE' AND TG_NARGS = 4 THEN
        old_row := to_jsonb(OLD);
        new_row := to_jsonb(NEW);
        IF old_row ->> TG_ARGV[0] = TG_ARGV[1]
           AND new_row ->> TG_ARGV[0] = ANY (string_to_array(TG_ARGV[2], ','))
           AND NOT EXISTS (
               SELECT 1 FROM unnest(string_to_array(TG_ARGV[3], ',')) AS kept(name)
               WHERE old_row -> kept.name IS DISTINCT FROM new_row -> kept.name)
        THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$ LANGUAGE plpgsql;
"""

# workers 0003's version, for going back.
PREVIOUS = """
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


def no_truncate(table: str) -> tuple[str, str]:
    return (
        f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION notiflow_append_only();",
        f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table};",
    )


class Migration(migrations.Migration):
    # After workers 0003, the last to define the function before this one.
    dependencies = [("triggers", "0006_trigger_created_by"), ("workers", "0004_redundant_indexes")]

    operations = [
        migrations.RunSQL(ROLE, migrations.RunSQL.noop),
        migrations.RunSQL(FUNCTION, PREVIOUS),
        migrations.RunSQL(*no_truncate("trigger_event")),
        # The run record itself: truncating it would take its whole history along (CASCADE).
        migrations.RunSQL(*no_truncate("trigger_instance")),
    ]
