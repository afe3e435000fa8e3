"""Step logs and the send ledger are append-only (see triggers 0002 for the function)."""

from django.db import migrations


def guard(table: str) -> tuple[str, str]:
    return (
        f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION notiflow_append_only();",
        f"DROP TRIGGER IF EXISTS {table}_append_only ON {table};",
    )


class Migration(migrations.Migration):
    dependencies = [("workers", "0001_initial"), ("triggers", "0002_append_only")]

    operations = [
        migrations.RunSQL(*guard("step_log")),
        migrations.RunSQL(*guard("send_ledger")),
    ]
