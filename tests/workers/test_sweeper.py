"""The sweeper (docs/design/rules.md, rules 1 and 5): what it nudges, what it leaves alone, and when."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from common import leased_work
from tests.factories import WorkflowFactory, chain, delay_node
from triggers.models import TriggerInstance
from workers.services.sweeper import sweep

pytestmark = pytest.mark.django_db

NOW = timezone.now


@pytest.fixture
def make():
    workflow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=0)))
    counter = iter(range(10_000))

    def make_trigger(**fields) -> TriggerInstance:
        defaults = {"status": "enqueued", "available_at": NOW(), "nudged_at": None}
        return TriggerInstance.objects.create(
            workflow=workflow,
            workflow_version=workflow.current_version,
            idempotency_key=f"k{next(counter)}",
            current_node_id="wait",
            **{**defaults, **fields},
        )

    return make_trigger


@pytest.fixture(autouse=True)
def waiting(monkeypatch):
    """The broker queue's length as the sweeper sees it (nothing waits unless a test says so)."""
    queue = {"length": 0}
    monkeypatch.setattr(leased_work, "nudges_waiting", lambda queues: queue["length"])
    return queue


def swept(django_capture_on_commit_callbacks) -> dict[str, float | None]:
    """{trigger id: countdown} of one sweep; asserts every batch is published on commit."""
    with django_capture_on_commit_callbacks() as callbacks:
        batches = sweep()
    assert len(callbacks) >= len(batches)
    return {str(nudge.trigger_id): nudge.countdown for batch in batches for nudge in batch}


def test_due_trigger_never_nudged_is_nudged_once(make, django_capture_on_commit_callbacks):
    trigger = make(available_at=NOW() - timedelta(seconds=1))
    assert str(trigger.pk) in swept(django_capture_on_commit_callbacks)
    trigger.refresh_from_db()
    assert trigger.nudged_at is not None
    assert str(trigger.pk) not in swept(django_capture_on_commit_callbacks)


def test_recently_nudged_trigger_is_left_to_its_nudge(make, django_capture_on_commit_callbacks):
    trigger = make(
        available_at=NOW() - timedelta(seconds=5), nudged_at=NOW() - timedelta(seconds=5)
    )
    assert str(trigger.pk) not in swept(django_capture_on_commit_callbacks)


@override_settings(NOTIFLOW_RENUDGE_AFTER_SECONDS=30)
def test_lost_nudge_is_replaced_after_renudge_interval(make, django_capture_on_commit_callbacks):
    trigger = make(
        available_at=NOW() - timedelta(seconds=60), nudged_at=NOW() - timedelta(seconds=60)
    )
    assert str(trigger.pk) in swept(django_capture_on_commit_callbacks)


@override_settings(NOTIFLOW_RENUDGE_AFTER_SECONDS=30, NOTIFLOW_SWEEP_BATCH_SIZE=100)
def test_no_renudge_while_a_backlog_waits_in_the_broker(
    make, waiting, django_capture_on_commit_callbacks
):
    """A nudge that is old because the queue is long is not lost: sending it again would only
    make the line longer. First nudges and expired leases go out regardless."""
    long_waiting = make(
        available_at=NOW() - timedelta(seconds=60), nudged_at=NOW() - timedelta(seconds=60)
    )
    never_nudged = make(available_at=NOW() - timedelta(seconds=1))
    dead_worker = make(
        status="processing", lease_until=NOW() - timedelta(seconds=1), leased_by="w/1"
    )
    waiting["length"] = 101
    nudged = swept(django_capture_on_commit_callbacks)
    assert str(long_waiting.pk) not in nudged
    assert {str(never_nudged.pk), str(dead_worker.pk)} <= nudged.keys()

    waiting["length"] = 100  # the line is short again: the nudge really was lost
    assert str(long_waiting.pk) in swept(django_capture_on_commit_callbacks)


@override_settings(NOTIFLOW_RENUDGE_AFTER_SECONDS=30)
def test_renudges_when_the_broker_cannot_say_how_long_the_queue_is(
    make, waiting, django_capture_on_commit_callbacks
):
    trigger = make(
        available_at=NOW() - timedelta(seconds=60), nudged_at=NOW() - timedelta(seconds=60)
    )
    waiting["length"] = None
    assert str(trigger.pk) in swept(django_capture_on_commit_callbacks)


def db_now():
    with connection.cursor() as cursor:
        cursor.execute("SELECT now()")
        return cursor.fetchone()[0]


@override_settings(NOTIFLOW_SWEEP_INTERVAL_SECONDS=5)
def test_looks_ahead_one_interval_with_a_countdown(make, django_capture_on_commit_callbacks):
    soon = make(available_at=db_now() + timedelta(seconds=3))
    later = make(available_at=db_now() + timedelta(seconds=30))
    nudges = swept(django_capture_on_commit_callbacks)
    assert str(later.pk) not in nudges
    assert 2 < nudges[str(soon.pk)] <= 3


@override_settings(NOTIFLOW_SWEEP_INTERVAL_SECONDS=5)
def test_a_countdown_is_on_the_database_clock_whatever_the_workers(
    make, django_capture_on_commit_callbacks
):
    soon = make(available_at=db_now() + timedelta(seconds=3))
    with mock.patch("django.utils.timezone.now", return_value=NOW() + timedelta(hours=1)):
        nudges = swept(django_capture_on_commit_callbacks)
    assert 2 < nudges[str(soon.pk)] <= 3


def test_expired_lease_is_nudged_live_lease_is_not(make, django_capture_on_commit_callbacks):
    dead = make(status="processing", lease_until=NOW() - timedelta(seconds=1), leased_by="gone/1")
    alive = make(status="processing", lease_until=NOW() + timedelta(seconds=30), leased_by="w/2")
    published = swept(django_capture_on_commit_callbacks)
    assert str(dead.pk) in published and str(alive.pk) not in published


@pytest.mark.parametrize("status", ["completed", "failed", "cancelled"])
def test_terminal_triggers_are_never_nudged(make, status, django_capture_on_commit_callbacks):
    trigger = make(status=status, available_at=NOW() - timedelta(days=1))
    assert str(trigger.pk) not in swept(django_capture_on_commit_callbacks)


@override_settings(NOTIFLOW_SWEEP_BATCH_SIZE=3)
def test_works_in_batches_oldest_first(make, django_capture_on_commit_callbacks):
    triggers = [make(available_at=NOW() - timedelta(seconds=100 - i)) for i in range(7)]
    with django_capture_on_commit_callbacks():
        batches = sweep()
    assert all(len(batch) <= 3 for batch in batches)
    batch_of = {str(nudge.trigger_id): n for n, batch in enumerate(batches) for nudge in batch}
    ours = [batch_of[str(t.pk)] for t in triggers]  # every one nudged, older never in a later batch
    assert ours == sorted(ours) and ours[-1] > ours[0]
