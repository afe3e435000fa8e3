"""docs/design/rules.md rule 8: PostgreSQL itself refuses to update or delete step logs, trigger events and
send-ledger rows; the ledger may only move `sending` -> `sent`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.utils import ProgrammingError

from tests.workers.history import trigger_with_history
from triggers.models import TriggerEvent, TriggerInstance
from workers.models import SendLedger, StepExecutionLog

pytestmark = pytest.mark.django_db

APPEND_ONLY: dict[str, Any] = {
    "step_log": StepExecutionLog,
    "trigger_event": TriggerEvent,
    "send_ledger": SendLedger,
}


@contextmanager
def refused(table: str) -> Iterator[None]:
    """The statement inside fails with the append-only trigger's own error, SQLSTATE 42501
    (insufficient_privilege). Run it in its own savepoint to keep the test transaction usable."""
    with pytest.raises(ProgrammingError, match=f"{table} is append-only") as excinfo:
        yield
    assert getattr(excinfo.value.__cause__, "sqlstate", None) == "42501"


def execute(sql: str, params: list | None = None) -> int:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


@pytest.fixture
def finished() -> TriggerInstance:
    return trigger_with_history(status="completed")


@pytest.mark.parametrize("table", APPEND_ONLY)
def test_raw_sql_update_of_an_audit_row_is_refused(finished, table):
    with refused(table):
        execute(f"UPDATE {table} SET id = id WHERE trigger_id = %s", [str(finished.pk)])  # noqa: S608


@pytest.mark.parametrize("table", APPEND_ONLY)
def test_raw_sql_delete_of_an_audit_row_is_refused(finished, table):
    with refused(table):
        execute(f"DELETE FROM {table} WHERE trigger_id = %s", [str(finished.pk)])  # noqa: S608
    assert APPEND_ONLY[table].objects.filter(trigger_id=finished.pk).exists()


@pytest.mark.parametrize("table", APPEND_ONLY)
def test_orm_save_of_an_audit_row_is_refused(finished, table):
    row = APPEND_ONLY[table].objects.filter(trigger_id=finished.pk).first()
    assert row is not None
    with refused(table), transaction.atomic():
        row.save()


@pytest.mark.parametrize("table", APPEND_ONLY)
def test_orm_queryset_update_and_delete_are_refused(finished, table):
    rows = APPEND_ONLY[table].objects.filter(trigger_id=finished.pk)
    with refused(table), transaction.atomic():
        rows.update(trigger_id=finished.pk)
    with refused(table), transaction.atomic():
        rows.delete()
    assert rows.exists()


def test_deleting_a_trigger_with_history_is_refused(finished):
    # Django's cascade deletes the children first, and those deletes are refused.
    with pytest.raises(ProgrammingError, match="is append-only"), transaction.atomic():
        finished.delete()
    assert TriggerInstance.objects.filter(pk=finished.pk).exists()


def test_event_reason_cannot_be_rewritten(finished):
    event = TriggerEvent.objects.filter(trigger_id=finished.pk).first()
    assert event is not None
    with refused("trigger_event"):
        execute("UPDATE trigger_event SET reason = 'nothing happened' WHERE id = %s", [event.pk])
    event.refresh_from_db()
    assert event.reason != "nothing happened"


def test_ledger_sending_may_become_sent_once():
    processing = trigger_with_history(status="processing")
    ledger = SendLedger.objects.get(trigger_id=processing.pk)
    assert ledger.status == "sending"

    execute("UPDATE send_ledger SET send_count = send_count + 1 WHERE id = %s", [ledger.pk])
    execute(
        "UPDATE send_ledger SET status = 'sent', result = '{}'::jsonb, sent_at = now() "
        "WHERE id = %s",
        [ledger.pk],
    )
    ledger.refresh_from_db()
    assert (ledger.status, ledger.send_count) == ("sent", 2)

    with refused("send_ledger"):
        execute("UPDATE send_ledger SET status = 'sending' WHERE id = %s", [ledger.pk])
    with refused("send_ledger"):
        execute("UPDATE send_ledger SET result = '{\"x\": 1}'::jsonb WHERE id = %s", [ledger.pk])
    with refused("send_ledger"):
        execute("UPDATE send_ledger SET send_count = 5 WHERE id = %s", [ledger.pk])
    ledger.refresh_from_db()
    assert (ledger.status, ledger.send_count, ledger.result) == ("sent", 2, {})


def test_a_sending_ledger_row_cannot_change_its_key_or_trigger():
    processing = trigger_with_history(status="processing")
    other = trigger_with_history(status="processing")
    ledger = SendLedger.objects.get(trigger_id=processing.pk)
    with refused("send_ledger"):
        execute("UPDATE send_ledger SET idempotency_key = 'forged' WHERE id = %s", [ledger.pk])
    with refused("send_ledger"):
        execute("UPDATE send_ledger SET node_id = 'other' WHERE id = %s", [ledger.pk])
    with refused("send_ledger"):
        execute("UPDATE send_ledger SET trigger_id = %s WHERE id = %s", [str(other.pk), ledger.pk])


@pytest.mark.parametrize("table", APPEND_ONLY)
def test_only_the_retention_role_may_delete_and_a_setting_opens_nothing(finished, table):
    # The old escape hatch, a setting any session could turn on, is gone.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL notiflow.retention = 'on'")
        with refused(table), transaction.atomic():
            cursor.execute(f"DELETE FROM {table} WHERE trigger_id = %s", [str(finished.pk)])  # noqa: S608
    assert APPEND_ONLY[table].objects.filter(trigger_id=finished.pk).exists()
    # The retention role deletes (nobody logs in as it; the test's superuser can become it) ...
    kept = trigger_with_history(status="completed")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL ROLE notiflow_retention")
        cursor.execute(f"DELETE FROM {table} WHERE trigger_id = %s", [str(finished.pk)])  # noqa: S608
        assert cursor.rowcount >= 1
        # ... and never rewrites (it has no UPDATE grant on history, and the guard would refuse).
        denied = f"permission denied for table {table}|{table} is append-only"
        with pytest.raises(ProgrammingError, match=denied), transaction.atomic():
            cursor.execute(f"UPDATE {table} SET id = id WHERE trigger_id = %s", [str(kept.pk)])  # noqa: S608
        transaction.set_rollback(True)


@pytest.mark.parametrize("table", [*APPEND_ONLY, "trigger_instance"])
def test_truncate_is_refused(finished, table):
    # CASCADE reaches the history tables too; whichever guard fires first refuses it all.
    with (
        pytest.raises(ProgrammingError, match="is append-only: TRUNCATE refused"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        # The test's deferred foreign-key checks would block TRUNCATE for their own reason.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(f"TRUNCATE {table} CASCADE")
    assert TriggerInstance.objects.filter(pk=finished.pk).exists()
