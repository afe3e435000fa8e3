"""Retention (`manage.py purge_logs`): the one path that deletes audit rows."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from io import StringIO
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone

from tests.support.stack import ROOT
from tests.workers.history import backdate, trigger_with_history
from triggers.models import TriggerEvent, TriggerInstance
from triggers.state import trigger_cancel
from workers.models import SendLedger, StepExecutionLog
from workers.services.retention import retention_purge

pytestmark = pytest.mark.django_db

LONG_AGO = timezone.now() - timedelta(days=40)


def history_counts(trigger: TriggerInstance) -> tuple[int, int, int, int]:
    return (
        TriggerInstance.objects.filter(pk=trigger.pk).count(),
        StepExecutionLog.objects.filter(trigger_id=trigger.pk).count(),
        SendLedger.objects.filter(trigger_id=trigger.pk).count(),
        TriggerEvent.objects.filter(trigger_id=trigger.pk).count(),
    )


def old(status: str) -> TriggerInstance:
    if status == "cancelled":
        trigger = trigger_with_history(status="processing")
        trigger = trigger_cancel(trigger_id=trigger.pk, actor="tests")
    else:
        trigger = trigger_with_history(status=status)
    backdate(trigger, LONG_AGO)
    return TriggerInstance.objects.get(pk=trigger.pk)


def purge(*args: str) -> str:
    out = StringIO()
    call_command("purge_logs", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("status", ["completed", "failed", "cancelled"])
def test_finished_trigger_older_than_cutoff_is_purged_with_all_its_history(status):
    trigger = old(status)
    assert history_counts(trigger)[0] == 1 and history_counts(trigger)[3] >= 2

    report = retention_purge(older_than=timedelta(days=30))

    assert history_counts(trigger) == (0, 0, 0, 0)
    assert report.deleted["trigger_instance"] == 1
    assert report.deleted["send_ledger"] == 1


@pytest.mark.parametrize("status", ["enqueued", "processing"])
def test_history_of_a_trigger_that_can_still_run_is_never_purged(status):
    trigger = old(status)
    before = history_counts(trigger)
    assert before[3] >= 1

    report = retention_purge(older_than=timedelta(days=1))

    assert history_counts(trigger) == before
    assert report.deleted["trigger_instance"] == 0


def test_finished_trigger_younger_than_cutoff_is_kept():
    recent = trigger_with_history(status="completed")
    # Created long ago, finished yesterday: its age counts from completed_at.
    TriggerInstance.objects.filter(pk=recent.pk).update(
        created_at=LONG_AGO, completed_at=timezone.now() - timedelta(days=1)
    )
    before = history_counts(recent)
    retention_purge(older_than=timedelta(days=30))
    assert history_counts(recent) == before


def test_purge_works_in_batches_and_reports_each():
    triggers = [old("completed") for _ in range(5)]
    batches: list[tuple[int, dict[str, int]]] = []

    report = retention_purge(
        older_than=timedelta(days=30),
        batch_size=2,
        on_batch=lambda n, counts: batches.append((n, counts)),
    )

    assert [(n, c["trigger_instance"]) for n, c in batches] == [(1, 2), (2, 2), (3, 1)]
    assert report.batches == 3
    assert report.deleted == {
        "step_log": 5,
        "send_ledger": 5,
        "trigger_event": sum(c["trigger_event"] for _, c in batches),
        "trigger_instance": 5,
    }
    assert report.deleted["trigger_event"] == 5 * 3  # created, claimed, finished
    assert not TriggerInstance.objects.filter(pk__in=[t.pk for t in triggers]).exists()


def test_the_retention_permission_ends_with_the_purge():
    old("completed")
    kept = trigger_with_history(status="completed")
    retention_purge(older_than=timedelta(days=30))
    # Even inside the same (test) transaction, deleting audit rows is refused again.
    with pytest.raises(Exception, match="step_log is append-only"), connection.cursor() as cursor:
        cursor.execute("DELETE FROM step_log WHERE trigger_id = %s", [str(kept.pk)])


def test_dry_run_counts_and_deletes_nothing():
    trigger = old("completed")
    before = history_counts(trigger)

    output = purge("--older-than", "30d", "--dry-run")

    assert history_counts(trigger) == before
    assert output.startswith("Would delete")
    assert "trigger_instance 1," in output and "step_log 1" in output


def test_command_prints_progress_and_what_it_deleted():
    for _ in range(3):
        old("failed")

    output = purge("--older-than", "720h", "--batch-size", "2")

    lines = output.strip().splitlines()
    # A bar against the count made first, then what the batch deleted.
    assert lines[0].startswith(
        "batch 1: [#############-------] 2 of 3 triggers (67%); trigger_instance 2,"
    )
    assert lines[1].startswith(
        "batch 2: [####################] 3 of 3 triggers (100%); trigger_instance 1,"
    )
    assert lines[-1].startswith("Deleted (finished before ")
    assert "trigger_instance 3, trigger_event 9, send_ledger 3, step_log 3" in lines[-1]


def test_a_duty_cycle_pauses_after_each_batch_in_proportion_to_the_batchs_time(monkeypatch):
    """--duty-cycle 0.25: after a batch of 2 s, 6 s of pause; after one of 1 s, 3 s."""
    from workers.management import retention as command

    for _ in range(3):
        old("completed")
    readings = iter([100.0, 102.0, 108.0, 109.0, 112.0])  # start, batch 1 ends, resumed, ...
    pauses: list[float] = []
    monkeypatch.setattr(
        command, "time", SimpleNamespace(monotonic=lambda: next(readings), sleep=pauses.append)
    )

    output = purge("--older-than", "30d", "--batch-size", "2", "--duty-cycle", "0.25")

    assert pauses == [6.0, 3.0]
    assert "trigger_instance 3," in output.strip().splitlines()[-1]


@pytest.mark.parametrize("value", ["0", "-0.5", "1.5"])
def test_command_refuses_a_duty_cycle_outside_zero_to_one(value):
    with pytest.raises(CommandError, match="--duty-cycle must be over 0 and at most 1"):
        purge("--older-than", "30d", "--duty-cycle", value)


@pytest.mark.parametrize("value", ["0d", "0", "soon", "-3d", "30x", ""])
def test_command_refuses_an_invalid_or_zero_period(value):
    with pytest.raises(CommandError, match="--older-than"):
        purge("--older-than", value)


def test_command_without_a_period_exits_non_zero_with_a_clear_error():
    result = subprocess.run(
        [sys.executable, "manage.py", "purge_logs"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "--older-than" in result.stderr and "required" in result.stderr


def test_events_are_purged_once_old_and_over_and_kept_while_pending(receiver):
    from events.models import OutboxEvent, WebhookAttempt, WebhookDelivery
    from events.services.dispatcher import delivery_send
    from events.services.endpoints import endpoint_create, endpoint_ping

    endpoint = endpoint_create(url=receiver.url("/ok/retention"), events=["*"])
    delivered = endpoint_ping(endpoint)
    assert delivery_send(delivered.deliveries.get().pk, worker_id="w") == "delivered"
    pending = endpoint_ping(endpoint)
    later = timezone.now() + timedelta(days=31)

    from workers.services.retention import retention_purge_events

    out = StringIO()
    call_command("purge_events", "--older-than", "30d", "--dry-run", stdout=out)
    assert "outbox_event 0" in out.getvalue()  # nothing is 30 days old yet
    # Thirty-one days on. (Events the end-to-end tests committed go too: count by difference.)
    before = OutboxEvent.objects.count()
    expected = retention_purge_events(older_than=timedelta(days=30), now=later, dry_run=True)
    report = retention_purge_events(older_than=timedelta(days=30), now=later, batch_size=2)
    assert report.deleted == expected.deleted
    assert report.deleted["outbox_event"] == before - OutboxEvent.objects.count() >= 1
    assert report.deleted["webhook_attempt"] >= 1
    assert not OutboxEvent.objects.filter(pk=delivered.pk).exists()
    assert not WebhookAttempt.objects.filter(event_id=delivered.event_id).exists()
    assert WebhookDelivery.objects.filter(event=pending).exists()  # still pending: kept
