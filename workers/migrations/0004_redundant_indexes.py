"""Drop the indexes no query needs on the send ledger and the step log:

- send_ledger.trigger_id and step_log.trigger_id: Django's single-column foreign-key indexes,
  which send_ledger_once (trigger, node_id) and step_log_once_per_attempt / step_log_trigger_idx
  already lead with;
- send_ledger.idempotency_key's LIKE index (varchar_pattern_ops, made by `unique=True`); the
  uniqueness stays, as the constraint send_ledger_key_unique (the old one, renamed: no rebuild).

Only indexes go: Django's own AlterField would also drop and re-add the foreign keys, re-checking
every row of the tables under lock.
"""

import django.db.models.deletion
from django.db import migrations, models

DROP = """
DROP INDEX IF EXISTS send_ledger_trigger_id_cf2d47e0;
DROP INDEX IF EXISTS step_log_trigger_id_af2f0676;
DROP INDEX IF EXISTS send_ledger_idempotency_key_0124fc4c_like;
ALTER TABLE send_ledger RENAME CONSTRAINT send_ledger_idempotency_key_key TO send_ledger_key_unique;
"""
RESTORE = """
ALTER TABLE send_ledger RENAME CONSTRAINT send_ledger_key_unique TO send_ledger_idempotency_key_key;
CREATE INDEX IF NOT EXISTS send_ledger_idempotency_key_0124fc4c_like
    ON send_ledger (idempotency_key varchar_pattern_ops);
CREATE INDEX IF NOT EXISTS step_log_trigger_id_af2f0676 ON step_log (trigger_id);
CREATE INDEX IF NOT EXISTS send_ledger_trigger_id_cf2d47e0 ON send_ledger (trigger_id);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("triggers", "0004_redundant_indexes"),
        ("workers", "0003_append_only_guard_per_table"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(DROP, RESTORE)],
            state_operations=[
                migrations.AlterField(
                    model_name="sendledger",
                    name="idempotency_key",
                    field=models.CharField(max_length=200),
                ),
                migrations.AlterField(
                    model_name="sendledger",
                    name="trigger",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="sends",
                        to="triggers.triggerinstance",
                    ),
                ),
                migrations.AlterField(
                    model_name="stepexecutionlog",
                    name="trigger",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="steps",
                        to="triggers.triggerinstance",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="sendledger",
                    constraint=models.UniqueConstraint(
                        fields=("idempotency_key",), name="send_ledger_key_unique"
                    ),
                ),
            ],
        ),
    ]
