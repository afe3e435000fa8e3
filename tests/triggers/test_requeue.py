"""Requeue stuck: a state-machine transition with its event and a nudge, never a live lease."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.triggers.support import claimed, new_trigger
from triggers.selectors import trigger_stuck_list
from triggers.state import TriggerStateConflict, trigger_requeue

pytestmark = pytest.mark.django_db


def test_expired_lease_goes_back_to_enqueued_with_an_event_and_a_nudge(
    django_capture_on_commit_callbacks,
):
    trigger = claimed(new_trigger(), lease_seconds=-1)

    with django_capture_on_commit_callbacks() as nudges:
        requeued = trigger_requeue(trigger_id=trigger.pk, actor="ops", overdue_after=timedelta(0))

    requeued.refresh_from_db()
    assert (requeued.status, requeued.lease_until, requeued.leased_by) == ("enqueued", None, "")
    assert requeued.current_node_id == trigger.current_node_id
    event = requeued.events.order_by("id").reverse()[0]
    assert (event.from_status, event.to_status, event.actor) == ("processing", "enqueued", "ops")
    assert "lease of test-host:1/abc expired" in event.reason
    assert len(nudges) == 1


def test_live_lease_is_never_taken_away():
    trigger = claimed(new_trigger(), lease_seconds=60)

    with pytest.raises(TriggerStateConflict):
        trigger_requeue(trigger_id=trigger.pk, actor="ops", overdue_after=timedelta(0))
    trigger.refresh_from_db()
    assert trigger.status == "processing"


def test_overdue_enqueued_trigger_is_renudged_only_past_the_threshold(
    django_capture_on_commit_callbacks,
):
    trigger = new_trigger()

    with pytest.raises(TriggerStateConflict):
        trigger_requeue(trigger_id=trigger.pk, actor="ops", overdue_after=timedelta(hours=1))
    with django_capture_on_commit_callbacks() as nudges:
        trigger_requeue(trigger_id=trigger.pk, actor="ops", overdue_after=timedelta(0))

    assert len(nudges) == 1
    assert list(trigger.events.values_list("from_status", "to_status")) == [
        ("", "enqueued"),
        ("enqueued", "enqueued"),
    ]


def test_stuck_list_has_expired_leases_and_overdue_triggers_only():
    expired = claimed(new_trigger(), lease_seconds=-1)
    live = claimed(new_trigger(), lease_seconds=60)
    due = new_trigger()

    stuck = set(trigger_stuck_list(overdue_after=timedelta(0)).values_list("pk", flat=True))
    assert expired.pk in stuck and due.pk in stuck and live.pk not in stuck
    stuck = set(trigger_stuck_list(overdue_after=timedelta(hours=1)).values_list("pk", flat=True))
    assert due.pk not in stuck and expired.pk in stuck
