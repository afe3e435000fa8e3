"""Waiting for what happened to a run's own message: a provider's report about the email a step
sent (opened, clicked: an open too) resumes a run waiting for it; a report that came before the
run reached the node counts; a report about another run's message does not."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from deliveries.services import Report, delivery_record
from inbox.models import InboxMessage
from inbox.tokens import recipient_token
from tests.factories import email_node, sms_node
from tests.support.waits import waits_time_out
from tests.waits.test_wait_event import step
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from waits.models import EventWait, ReceivedEvent
from workers.models import SendLedger

pytestmark = [pytest.mark.django_db]

PAYLOAD = {"email": "ada@example.com", "name": "Ada", "phone": "+15550199"}


@pytest.fixture(autouse=True)
def locmem_email():
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        yield


def welcome_then_wait() -> dict:
    """docs/guide/workflows.md's example: an email, up to an hour for it to be opened, else an SMS."""
    return {
        "entry_node_id": "welcome",
        "nodes": [
            email_node("welcome"),
            {
                "id": "opened",
                "type": "wait_event",
                "message": "welcome",
                "event": "message.opened",
                "timeout": "1h",
            },
            sms_node("nudge"),
        ],
        "edges": [
            {"from": "welcome", "to": "opened"},
            {"from": "opened", "to": "nudge", "when": "vars.opened.timed_out"},
        ],
    }


def report(trigger: TriggerInstance, event: str) -> None:
    send = SendLedger.objects.get(trigger_id=trigger.pk, node_id="welcome")
    row = delivery_record(
        Report(
            provider=send.provider,
            channel="email",
            event=event,
            recipient="ada@example.com",
            provider_message_id="",
            event_id=f"{trigger.pk}-{event}",
            idempotency_key=f"{trigger.pk}:welcome",
            reporters=frozenset({send.provider}),
        )
    )
    assert row is not None


def test_an_open_reported_while_the_run_waits_resumes_it():
    trigger = step(due_trigger(welcome_then_wait(), payload=PAYLOAD))  # the email
    other = step(due_trigger(welcome_then_wait(), payload=PAYLOAD))
    trigger, other = step(trigger), step(other)
    assert (trigger.status, other.status) == ("waiting", "waiting")
    report(trigger, "delivered")  # not what it waits for
    trigger.refresh_from_db()
    assert trigger.status == "waiting"
    report(trigger, "clicked")  # a click is an open
    trigger.refresh_from_db()
    other.refresh_from_db()
    assert (trigger.status, other.status) == ("enqueued", "waiting")
    trigger = step(trigger)
    assert trigger.vars["opened"]["received"] is True
    assert trigger.vars["opened"]["event"]["data"]["node_id"] == "welcome"
    assert trigger.status == "completed"  # opened: no SMS


def test_an_open_reported_before_the_run_reached_the_node_counts():
    trigger = step(due_trigger(welcome_then_wait(), payload=PAYLOAD))
    report(trigger, "opened")
    trigger = step(trigger)
    assert trigger.vars["opened"]["received"] is True and trigger.status == "completed"


def test_a_message_wait_validates_its_event():
    from workflows.validation import workflow_validate

    definition = welcome_then_wait()
    definition["nodes"][1]["event"] = "order.paid"
    problems = workflow_validate(definition)
    assert any("message.<state>" in str(p) for p in problems)


def test_a_condition_reads_the_latest_state_of_an_earlier_steps_message():
    definition = welcome_then_wait()
    definition["edges"][1] = {
        "from": "opened",
        "to": "nudge",
        "when": 'steps.welcome.delivery != "opened" and steps.welcome.delivery != "clicked"',
    }
    opened = step(due_trigger(definition, payload=PAYLOAD))
    assert opened.workflow_version and opened.status == "enqueued"
    report(opened, "clicked")  # reported before the wait: counts, and the state is `clicked`
    opened = step(opened)
    assert opened.status == "completed"  # no SMS: the condition read `clicked`

    silent = step(due_trigger(definition, payload=PAYLOAD))
    silent = step(silent)
    assert silent.status == "waiting"
    EventWait.objects.filter(trigger_id=silent.pk).update(
        deadline=timezone.now() - timedelta(days=1)  # before the test transaction's now()
    )
    waits_time_out()
    silent = step(silent)
    assert silent.current_node_id == "nudge"  # the state was `sent`: the SMS goes
    assert silent.vars["opened"]["timed_out"] is True


def bell_then_wait(event: str) -> dict:
    """Knock's example: an in-app message, up to an hour for it to be `event`, else an SMS."""
    return {
        "entry_node_id": "bell",
        "nodes": [
            {"id": "bell", "type": "inapp", "title": "Hi {{ payload.name }}", "body": "Hello"},
            {
                "id": "seen",
                "type": "wait_event",
                "message": "bell",
                "event": event,
                "timeout": "1h",
            },
            sms_node("nudge"),
        ],
        "edges": [
            {"from": "bell", "to": "seen"},
            {"from": "seen", "to": "nudge", "when": "vars.seen.timed_out"},
        ],
    }


def mark(recipient: str, trigger: TriggerInstance, as_: str) -> list[str]:
    message = InboxMessage.objects.get(trigger_id=trigger.pk, node_id="bell")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Recipient {recipient}:{recipient_token(recipient)}")
    response = api.post("/api/inbox/mark/", {"ids": [str(message.pk)], "as": as_}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["marked"]


def test_an_inapp_message_read_over_the_feed_api_resumes_the_run_once():
    trigger = step(due_trigger(bell_then_wait("message.read"), payload=PAYLOAD, recipient="u-1"))
    other = step(due_trigger(bell_then_wait("message.read"), payload=PAYLOAD, recipient="u-1"))
    trigger, other = step(trigger), step(other)
    assert (trigger.status, other.status) == ("waiting", "waiting")
    mark("u-1", trigger, "seen")  # seen is not read
    trigger.refresh_from_db()
    assert trigger.status == "waiting"
    assert mark("u-1", trigger, "read")
    trigger.refresh_from_db()
    other.refresh_from_db()
    assert (trigger.status, other.status) == ("enqueued", "waiting")
    trigger = step(trigger)
    assert trigger.vars["seen"]["received"] is True
    assert trigger.vars["seen"]["event"]["data"] == {
        "trigger_id": str(trigger.pk),
        "node_id": "bell",
        "channel": "inapp",
        "state": "read",
    }
    assert trigger.status == "completed"  # read: no SMS
    assert mark("u-1", trigger, "unread") and mark("u-1", trigger, "read")  # again: nothing new
    wait = EventWait.objects.get(trigger_id=trigger.pk)
    assert (
        wait.resolved_by == "inbox"
        and ReceivedEvent.objects.filter(event_id__startswith="inbox-").count() == 3
    )  # read, seen, opened: once each


def test_an_inapp_read_counts_as_seen_and_opened_and_an_unread_message_times_out():
    seen = step(due_trigger(bell_then_wait("message.opened"), payload=PAYLOAD, recipient="u-2"))
    seen = step(seen)
    assert mark("u-2", seen, "read")  # a read is a seen, and an open
    seen = step(seen)
    assert seen.vars["seen"]["received"] is True and seen.status == "completed"

    silent = step(due_trigger(bell_then_wait("message.seen"), payload=PAYLOAD, recipient="u-2"))
    silent = step(silent)
    EventWait.objects.filter(trigger_id=silent.pk).update(
        deadline=timezone.now() - timedelta(days=1)
    )
    waits_time_out()
    silent = step(silent)
    assert silent.current_node_id == "nudge" and silent.vars["seen"]["timed_out"] is True
