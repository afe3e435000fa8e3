"""A message's report or in-app mark is committed first and posted to waiting runs after; a
process that dies in between loses the post (docs/design/waits.md, "Waiting for events": message
waits). The run waiting for that message must still end `received: true`: a redelivered report
posts again, and the node's look-back and every timeout read the recorded state themselves.
The crash is simulated by a post that raises after the commit."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from deliveries.models import DeliveryEvent
from inbox.models import InboxMessage
from inbox.services import inbox_mark
from tests.support.waits import waits_time_out
from tests.waits.test_message_waits import PAYLOAD, bell_then_wait, report, welcome_then_wait
from tests.waits.test_wait_event import step
from tests.workers.helpers import due_trigger
from triggers.models import TriggerEvent, TriggerInstance
from waits import sql
from waits.models import EventWait, ReceivedEvent

pytestmark = [pytest.mark.django_db]


class Killed(Exception):
    """The process died after the report's commit, before its post."""


def killed(**_):
    raise Killed


@pytest.fixture(autouse=True)
def locmem_email():
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        yield


def report_lost(trigger: TriggerInstance, event: str) -> None:
    """A provider's report committed, its post to waiting runs lost."""
    with mock.patch("deliveries.services.message_events_post", killed), pytest.raises(Killed):
        report(trigger, event)
    assert DeliveryEvent.objects.filter(trigger_id=trigger.pk, event=event).exists()


def mark_lost(trigger: TriggerInstance, as_: str) -> None:
    """An in-app mark committed, its post to waiting runs lost."""
    message = InboxMessage.objects.get(trigger_id=trigger.pk, node_id="bell")
    with mock.patch("waits.messages.message_events_post", killed), pytest.raises(Killed):
        inbox_mark(recipient=trigger.recipient, mark=as_, ids=[str(message.pk)])
    message.refresh_from_db()
    assert message.read_at if as_ == "read" else message.seen_at


def waiting(definition: dict, **fields) -> TriggerInstance:
    trigger = step(step(due_trigger(definition, payload=PAYLOAD, **fields)))
    assert trigger.status == "waiting", trigger.last_error
    return trigger


def past_deadline(trigger: TriggerInstance) -> None:
    EventWait.objects.filter(trigger_id=trigger.pk).update(
        deadline=timezone.now() - timedelta(days=1)  # before the test transaction's now()
    )


def test_a_lost_post_is_posted_again_by_the_providers_redelivery():
    trigger = waiting(welcome_then_wait())
    report_lost(trigger, "opened")
    trigger.refresh_from_db()
    assert trigger.status == "waiting"  # nothing resumed it
    report(trigger, "opened")  # the provider had no answer: it sends the same report again
    assert DeliveryEvent.objects.filter(trigger_id=trigger.pk, event="opened").count() == 1
    trigger.refresh_from_db()
    assert trigger.status == "enqueued"
    trigger = step(trigger)
    assert trigger.vars["opened"]["received"] is True and trigger.status == "completed"
    assert EventWait.objects.get(trigger_id=trigger.pk).resolved_by.startswith("provider:")


def test_a_lost_post_does_not_time_the_wait_out_the_sweep_takes_the_recorded_report():
    trigger = waiting(welcome_then_wait())
    other = waiting(welcome_then_wait())  # nothing reported about its message
    report_lost(trigger, "clicked")  # a click is an open
    past_deadline(trigger)
    past_deadline(other)
    assert waits_time_out() == 2
    trigger, other = step(trigger), step(other)
    row = DeliveryEvent.objects.get(trigger_id=trigger.pk)
    assert trigger.vars["opened"]["received"] is True
    assert trigger.vars["opened"]["timed_out"] is False
    event = trigger.vars["opened"]["event"]
    # the event its lost post would have carried
    assert (event["id"], event["name"]) == (f"delivery-{row.pk}:opened", "message.opened")
    assert event["data"] == {
        "trigger_id": str(trigger.pk),
        "node_id": "welcome",
        "channel": "email",
        "state": "opened",
    }
    assert trigger.status == "completed"  # opened: no SMS
    assert other.vars["opened"]["timed_out"] is True and other.current_node_id == "nudge"
    assert EventWait.objects.get(trigger_id=trigger.pk).resolved_by == "recorded"
    resumed = TriggerEvent.objects.get(trigger=trigger, from_status="waiting")
    assert (resumed.reason, resumed.actor) == (
        f"recorded message.opened delivery-{row.pk}:opened",
        "sweeper",
    )
    # the real post, late, resumes nothing twice
    report(trigger, "clicked")
    trigger.refresh_from_db()
    assert trigger.status == "completed"


def test_a_report_whose_post_was_lost_before_the_node_is_taken_at_once():
    trigger = step(due_trigger(welcome_then_wait(), payload=PAYLOAD))  # the email
    report_lost(trigger, "opened")
    assert not ReceivedEvent.objects.exists()  # nothing posted: the look-back finds no event
    trigger = step(trigger)
    assert trigger.status == "completed" and trigger.vars["opened"]["received"] is True
    assert EventWait.objects.get(trigger_id=trigger.pk).resolved_by == "recorded"


def test_a_recorded_state_that_does_not_reach_the_waited_one_still_times_out():
    trigger = waiting(welcome_then_wait())
    report_lost(trigger, "delivered")  # delivered is not opened
    past_deadline(trigger)
    assert waits_time_out() == 1
    trigger = step(trigger)
    assert trigger.vars["opened"]["timed_out"] is True and trigger.current_node_id == "nudge"


def test_an_inapp_read_whose_post_was_lost_ends_the_wait_received():
    trigger = waiting(bell_then_wait("message.seen"), recipient="u-3")
    unread = waiting(bell_then_wait("message.read"), recipient="u-3")
    mark_lost(trigger, "read")  # a read is a seen
    mark_lost(unread, "seen")  # a seen is not a read
    trigger.refresh_from_db()
    assert trigger.status == "waiting"
    past_deadline(trigger)
    past_deadline(unread)
    assert waits_time_out() == 2
    trigger, unread = step(trigger), step(unread)
    message = InboxMessage.objects.get(trigger_id=trigger.pk)
    assert trigger.vars["seen"]["received"] is True and trigger.status == "completed"
    assert trigger.vars["seen"]["event"]["id"] == f"inbox-{message.pk}:seen"
    assert trigger.vars["seen"]["event"]["data"]["channel"] == "inapp"
    assert unread.vars["seen"]["timed_out"] is True and unread.current_node_id == "nudge"


def test_the_node_itself_closes_a_message_wait_past_its_deadline_as_received():
    """WAIT_EXPIRE_SQL: a run claimed again at its node past the deadline, a report recorded
    between its look-back and its expiry."""
    trigger = waiting(welcome_then_wait())
    report_lost(trigger, "opened")
    past_deadline(trigger)
    ids = {"trigger_id": str(trigger.pk), "node_id": "opened"}
    with connection.cursor() as cursor:
        cursor.execute(sql.WAIT_EXPIRE_SQL, {**ids, **sql.RECORDED_PARAMS})
    wait = EventWait.objects.get(trigger_id=trigger.pk)
    assert (wait.received, wait.timed_out, wait.resolved_by) == (True, False, "recorded")
    assert wait.event["name"] == "message.opened"
