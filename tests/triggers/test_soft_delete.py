"""Soft delete (docs/design/rules.md, rule 12): orthogonal to status, never claimed again, history kept,
the idempotency key free again. The service, the claim, the sweeper, the operator levers, the
selectors and intake; the API is in test_soft_delete_api.py, end to end in
tests/workers/test_soft_delete_e2e.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from common import leased_work
from tests.factories import WorkflowFactory, chain, delay_node
from tests.triggers.support import TOKEN, claim, claimed, failed, new_trigger, released
from triggers import services
from triggers.models import TriggerInstance
from triggers.selectors import (
    trigger_failed_list,
    trigger_list,
    trigger_oldest_waiting,
    trigger_stats,
    trigger_stuck_list,
)
from triggers.services import trigger_create
from triggers.sql import STATUS_PARAMS
from triggers.state import (
    MAX_DELETE_REASON_LENGTH,
    TriggerNotFound,
    TriggerStateConflict,
    trigger_cancel,
    trigger_delete,
    trigger_requeue,
    trigger_retry_now,
)
from triggers.work import RUNS
from workers.services.sweeper import sweep

pytestmark = pytest.mark.django_db


def deleted(trigger: TriggerInstance, reason: str = "duplicate send") -> TriggerInstance:
    return trigger_delete(trigger_id=trigger.pk, actor="ops", reason=reason)


# --- the service ----------------------------------------------------------------------------


def test_delete_sets_deleted_at_and_reason_and_writes_one_event_leaving_status_cursor_lease():
    trigger = claimed(new_trigger(), lease_seconds=60)

    result = deleted(trigger)

    stored = TriggerInstance.objects.get(pk=trigger.pk)
    assert stored.deleted_at is not None and stored.deleted_at == result.deleted_at
    assert stored.delete_reason == "duplicate send"
    assert (stored.status, stored.current_node_id) == ("processing", trigger.current_node_id)
    assert (stored.leased_by, stored.lease_until) == (TOKEN, trigger.lease_until)
    assert stored.attempts == trigger.attempts and stored.vars == trigger.vars
    event = stored.events.order_by("-id")[0]
    assert (event.from_status, event.to_status) == ("processing", "processing")
    assert (event.reason, event.actor) == ("deleted: duplicate send", "ops")
    assert event.node_id == trigger.current_node_id


def test_delete_without_a_reason_says_deleted():
    trigger = trigger_delete(trigger_id=new_trigger().pk, actor="ops")
    assert trigger.delete_reason == ""
    assert trigger.events.order_by("-id")[0].reason == "deleted"


def test_deleting_a_deleted_trigger_changes_nothing_and_writes_no_event():
    first = deleted(new_trigger())
    events = first.events.count()

    again = trigger_delete(trigger_id=first.pk, actor="someone else", reason="other")

    assert (again.deleted_at, again.delete_reason) == (first.deleted_at, "duplicate send")
    stored = TriggerInstance.objects.get(pk=first.pk)
    assert (stored.deleted_at, stored.delete_reason) == (first.deleted_at, "duplicate send")
    assert stored.events.count() == events


def test_delete_of_an_unknown_trigger_is_not_found():
    with pytest.raises(TriggerNotFound):
        trigger_delete(trigger_id="00000000-0000-0000-0000-000000000000", actor="ops")


def test_delete_refuses_an_overlong_reason_and_changes_nothing():
    trigger = new_trigger()
    with pytest.raises(ValueError, match=str(MAX_DELETE_REASON_LENGTH)):
        trigger_delete(trigger_id=trigger.pk, actor="ops", reason="x" * 1001)
    assert TriggerInstance.objects.get(pk=trigger.pk).deleted_at is None


@pytest.mark.parametrize("status", ["completed", "failed", "cancelled"])
def test_a_finished_trigger_can_be_deleted_and_stays_finished(status):
    trigger = new_trigger()
    if status == "cancelled":
        trigger = trigger_cancel(trigger_id=trigger.pk, actor="ops")
    else:
        trigger = released(claimed(trigger, lease_seconds=60), status=status)
    assert deleted(trigger).status == status


def test_retry_now_refuses_a_deleted_failed_trigger():
    trigger = deleted(failed(new_trigger()))
    with pytest.raises(TriggerStateConflict, match="deleted"):
        trigger_retry_now(trigger_id=trigger.pk, actor="ops")
    assert TriggerInstance.objects.get(pk=trigger.pk).status == "failed"


@pytest.mark.parametrize("stuck", ["expired lease", "overdue"])
def test_requeue_refuses_a_deleted_stuck_trigger(stuck):
    trigger = (
        claimed(new_trigger(), lease_seconds=-1) if stuck == "expired lease" else new_trigger()
    )
    deleted(trigger)
    with pytest.raises(TriggerStateConflict, match="deleted"):
        trigger_requeue(trigger_id=trigger.pk, actor="ops", overdue_after=timedelta(0))
    assert TriggerInstance.objects.get(pk=trigger.pk).status == trigger.status


def test_a_deleted_trigger_can_still_be_cancelled():
    trigger = deleted(new_trigger())
    cancelled = trigger_cancel(trigger_id=trigger.pk, actor="ops")
    assert (cancelled.status, cancelled.deleted_at) == ("cancelled", trigger.deleted_at)


# --- never claimed again --------------------------------------------------------------------


def test_claim_refuses_a_deleted_due_trigger():
    trigger = deleted(new_trigger())
    assert claim(trigger_id=trigger.pk, worker_id="w/1", lease_seconds=30) is None
    stored = TriggerInstance.objects.get(pk=trigger.pk)
    assert (stored.status, stored.leased_by) == ("enqueued", "")


def test_claim_refuses_a_deleted_trigger_whose_lease_expired():
    trigger = deleted(claimed(new_trigger(), lease_seconds=-1))
    assert claim(trigger_id=trigger.pk, worker_id="w/2", lease_seconds=30) is None
    assert TriggerInstance.objects.get(pk=trigger.pk).leased_by == TOKEN


def test_a_step_running_when_deleted_still_records_its_outcome():
    """The release is fenced by the lease token, not by deleted_at: the step that was running
    records, and the node it moves to is never claimed."""
    running = claimed(new_trigger(), lease_seconds=60)
    deleted(running)

    after = released(running, status="enqueued")

    assert (after.status, after.leased_by) == ("enqueued", "")
    assert claim(trigger_id=running.pk, worker_id="w/3", lease_seconds=30) is None


@pytest.fixture
def quiet_broker(monkeypatch):
    monkeypatch.setattr(leased_work, "nudges_waiting", lambda queues: 0)


def swept(django_capture_on_commit_callbacks) -> set[str]:
    with django_capture_on_commit_callbacks():
        batches = sweep()
    return {str(nudge.trigger_id) for batch in batches for nudge in batch}


def test_sweeper_never_nudges_a_deleted_trigger(quiet_broker, django_capture_on_commit_callbacks):
    due, expired = new_trigger(), claimed(new_trigger(), lease_seconds=-1)
    TriggerInstance.objects.filter(pk__in=[due.pk, expired.pk]).update(nudged_at=None)
    kept_due, kept_expired = new_trigger(), claimed(new_trigger(), lease_seconds=-1)
    TriggerInstance.objects.filter(pk__in=[kept_due.pk, kept_expired.pk]).update(nudged_at=None)
    deleted(due)
    deleted(expired)

    nudged = swept(django_capture_on_commit_callbacks)

    assert {str(kept_due.pk), str(kept_expired.pk)} <= nudged
    assert not {str(due.pk), str(expired.pk)} & nudged
    assert TriggerInstance.objects.filter(pk__in=[due.pk, expired.pk], nudged_at=None).count() == 2


_MANY_SQL = f"""
INSERT INTO {TriggerInstance._meta.db_table} (id, workflow_id, workflow_version_id,
    idempotency_key, payload, status, vars, attempts, available_at, lease_until, leased_by,
    last_error, created_at, updated_at)
SELECT gen_random_uuid(), %s, %s, gen_random_uuid()::text, '{{}}', %s, '{{}}', 0, now(),
       now() + %s * interval '1 second', '', '', now(), now()
FROM generate_series(1, %s)
"""  # noqa: S608 (the table's name from the model)


@pytest.mark.parametrize(
    ("statement", "index"),
    [(RUNS.sweep_due_sql, "trigger_due_idx"), (RUNS.sweep_expired_sql, "trigger_lease_idx")],
    ids=["due", "expired"],
)
def test_sweeper_statements_can_use_their_partial_index(statement, index):
    """The indexes leave deleted triggers out (deleted_at IS NULL); a statement that did not say
    so too could not use them. On a table shaped like a real one (mostly finished runs, some
    running, analysed) with sequential scans off, the plan shows whether it can."""
    params = {**STATUS_PARAMS, "lookahead": 1, "renudge": 30, "batch": 10, "renudge_lost": True}
    workflow = WorkflowFactory()
    with connection.cursor() as cursor:
        # Mostly finished runs, and some running under live leases, as a busy system has.
        cursor.execute(
            _MANY_SQL, [workflow.pk, workflow.current_version_id, "completed", None, 2000]
        )
        cursor.execute(_MANY_SQL, [workflow.pk, workflow.current_version_id, "processing", 60, 200])
        cursor.execute(f"ANALYZE {TriggerInstance._meta.db_table}")
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + statement, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert index in plan, plan


# --- what the selectors show ----------------------------------------------------------------


def test_lists_leave_deleted_triggers_out_or_show_only_them():
    workflow = WorkflowFactory()
    kept, gone = new_trigger(workflow), deleted(new_trigger(workflow))
    ids = lambda triggers: {t.pk for t in triggers.filter(workflow=workflow)}  # noqa: E731
    assert ids(trigger_list(deleted=False)) == {kept.pk}
    assert ids(trigger_list(deleted=True)) == {gone.pk}
    assert ids(trigger_list()) == {kept.pk, gone.pk}


def test_a_deleted_trigger_is_neither_stuck_nor_failed_nor_waiting():
    stuck, failure = claimed(new_trigger(), lease_seconds=-1), failed(new_trigger())
    overdue = new_trigger()
    long_ago = timezone.now() - timedelta(hours=1)
    TriggerInstance.objects.filter(pk=overdue.pk).update(available_at=long_ago)
    for trigger in (stuck, failure, overdue):
        deleted(trigger)

    assert not trigger_stuck_list(overdue_after=timedelta(0)).filter(pk__in=[stuck.pk, overdue.pk])
    assert not trigger_failed_list().filter(pk=failure.pk)
    # Health's lag: a deleted trigger due an hour ago waits for nobody.
    waiting = trigger_oldest_waiting(now=timezone.now())
    assert waiting is None or waiting > long_ago
    assert trigger_stats().oldest_due != overdue


# --- intake ---------------------------------------------------------------------------------


def test_after_delete_the_same_idempotency_key_creates_a_new_trigger():
    workflow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=0)))
    first, _ = trigger_create(workflow_key=workflow.key, idempotency_key="again", payload={})
    deleted(first)

    second, created = trigger_create(workflow_key=workflow.key, idempotency_key="again", payload={})
    third, created_again = trigger_create(
        workflow_key=workflow.key, idempotency_key="again", payload={}
    )

    assert created and second.pk != first.pk
    assert not created_again and third.pk == second.pk
    assert TriggerInstance.objects.get(pk=first.pk).deleted_at is not None


def test_a_delete_between_the_inbox_statement_and_its_read_creates_a_new_trigger(monkeypatch):
    """The race: ON CONFLICT finds the live trigger, and it is deleted before the read of it.
    The delete is made to land exactly there; intake runs its statement once more."""
    workflow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=0)))
    existing, _ = trigger_create(workflow_key=workflow.key, idempotency_key="race", payload={})
    statement = services.fetchall_prepared
    runs = []

    def delete_after_the_first_run(sql, params):
        rows = statement(sql, params)
        if sql == services.INTAKE_SQL:
            runs.append(rows[0])
            if len(runs) == 1:
                deleted(existing)
        return rows

    monkeypatch.setattr(services, "fetchall_prepared", delete_after_the_first_run)

    trigger, created = trigger_create(workflow_key=workflow.key, idempotency_key="race", payload={})

    assert created and trigger.pk != existing.pk
    assert len(runs) == 2
    assert runs[0][services.INTAKE_WORKFLOW_COLUMNS] is None  # the first run found the old one
    live = TriggerInstance.objects.filter(workflow=workflow, deleted_at=None)
    assert list(live.values_list("pk", flat=True)) == [trigger.pk]
