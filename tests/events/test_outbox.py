"""The outbox in-process: events are written by the release (and only when it applies), go only
where someone subscribes, in order, and say what the API would say of the trigger."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import transaction
from django.test import override_settings

from events import catalog
from events.models import OutboxEvent, WebhookDelivery, WebhookEndpoint
from events.services.dispatcher import endpoint_disable
from events.services.endpoints import endpoint_create
from events.services.outbox import Announcement, announcements_json, events_record
from tests.factories import chain, email_node
from tests.triggers.support import claim
from tests.workers.helpers import due_trigger
from triggers.announce import announcement
from triggers.models import TriggerInstance
from triggers.representation import trigger_json
from triggers.state import trigger_cancel
from triggers.steps import Release, StepRecord, trigger_release_with
from workers.services.engine import step_execute

pytestmark = [pytest.mark.django_db]


@pytest.fixture(autouse=True)
def no_endpoints():
    """Endpoints end-to-end tests committed stay in the test database: set aside here (the
    test's transaction rolls this back)."""
    WebhookEndpoint.objects.all().delete()
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        yield


def hook(**fields) -> WebhookEndpoint:
    return endpoint_create(
        url="http://127.0.0.1:9/hook", events=fields.pop("events", ["*"]), **fields
    )


def test_nothing_is_written_when_no_endpoint_subscribes():
    trigger = due_trigger(chain(email_node("mail")))
    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "completed"
    assert not OutboxEvent.objects.exists()


def test_a_step_writes_its_events_and_deliveries_in_order_with_the_release():
    endpoint = hook()
    trigger = due_trigger(chain(email_node("mail")))
    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "completed"

    sent, completed = OutboxEvent.objects.order_by("id")
    assert (sent.type, completed.type) == (catalog.MESSAGE_SENT, catalog.TRIGGER_COMPLETED)
    assert sent.trigger_id == completed.trigger_id == trigger.pk
    assert sent.data["message"]["to"] == "a@example.com"
    assert sent.data["message"]["node_id"] == "mail" and sent.data["message"]["channel"] == "email"
    assert {d.event_id for d in WebhookDelivery.objects.filter(endpoint=endpoint)} == {
        sent.pk,
        completed.pk,
    }


def test_the_event_shows_the_trigger_as_the_api_does_after_the_change():
    hook(events=[catalog.TRIGGER_COMPLETED])
    trigger = due_trigger(chain(email_node("mail")))
    step_execute(trigger_id=str(trigger.pk), worker_id="w")

    (event,) = OutboxEvent.objects.all()
    row = trigger_json(TriggerInstance.objects.get(pk=trigger.pk))
    # Its clocks too: the release shows the run as its own UPDATE left it (triggers migration
    # 0024), not as the worker would have guessed it a moment before.
    assert event.data["trigger"] == row
    assert row["completed_at"] and row["status"] == "completed" and row["cursor"] is None


def test_a_release_that_does_not_apply_writes_no_event():
    hook()
    trigger = due_trigger(chain(email_node("mail")))
    claimed = claim(trigger_id=trigger.pk, worker_id="w/1", lease_seconds=60)
    release = Release(status="completed", current_node_id=None, wait=timedelta(0), reason="done")
    record = StepRecord(
        events=announcements_json([announcement(catalog.TRIGGER_COMPLETED, claimed)])
    )

    stale = trigger_release_with(trigger=claimed, lease_token="w/0", release=release, record=record)
    assert stale is None and not OutboxEvent.objects.exists()
    _, ids = trigger_release_with(
        trigger=claimed, lease_token="w/1", release=release, record=record
    )
    assert OutboxEvent.objects.count() == 1 and len(ids) == 1


def test_endpoints_filter_by_event_type_and_workflow():
    trigger = due_trigger(chain(email_node("mail")))
    key = trigger.workflow.key
    wanted = [
        hook(events=["*"]),
        hook(events=[catalog.TRIGGER_CANCELLED]),
        hook(events=[catalog.TRIGGER_CANCELLED], workflows=[key]),
    ]
    unwanted = [hook(events=[catalog.TRIGGER_COMPLETED])]
    ids = events_record([announcement(catalog.TRIGGER_CANCELLED, trigger)])
    assert {d.endpoint_id for d in WebhookDelivery.objects.all()} == {e.pk for e in wanted}
    assert len(ids) == len(wanted) and not WebhookDelivery.objects.filter(endpoint__in=unwanted)


def test_an_endpoint_for_other_workflows_gets_nothing():
    trigger = due_trigger(chain(email_node("mail")))
    other = due_trigger(chain(email_node("mail"))).workflow
    hook(workflows=[other.key])
    assert events_record([announcement(catalog.TRIGGER_CANCELLED, trigger)]) == []
    assert not OutboxEvent.objects.exists()


def test_a_disabled_endpoint_keeps_its_events_without_a_nudge():
    endpoint = hook()
    endpoint_disable(endpoint.pk, reason="test")
    trigger = due_trigger(chain(email_node("mail")))
    assert events_record([announcement(catalog.TRIGGER_CANCELLED, trigger)]) == []
    (delivery,) = WebhookDelivery.objects.all()
    assert delivery.status == "pending" and delivery.nudged_at is None


def test_an_unknown_event_type_is_refused():
    with pytest.raises(ValueError, match="unknown event type"):
        Announcement(type="trigger.exploded", trigger_id=None, workflow_key="", data={})


def test_a_send_whose_release_cannot_apply_is_still_announced(monkeypatch):
    # The trigger is cancelled while its email is with the provider: the release no longer
    # applies, the ledger still records the send, and so does the outbox.
    from workers.channels import CHANNELS

    endpoint = hook()
    trigger = due_trigger(chain(email_node("mail"), email_node("again")))
    channel = CHANNELS["email"]
    send = channel.send

    def cancelled_meanwhile(rendered, **kwargs):
        trigger_cancel(trigger_id=trigger.pk, actor="test", reason="meanwhile")
        return send(rendered, **kwargs)

    monkeypatch.setattr(channel, "send", cancelled_meanwhile)
    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") is None

    types = list(OutboxEvent.objects.order_by("id").values_list("type", flat=True))
    assert types == [catalog.TRIGGER_CANCELLED, catalog.MESSAGE_SENT]
    sent = OutboxEvent.objects.get(type=catalog.MESSAGE_SENT)
    assert sent.data["trigger"]["status"] == "processing"  # as the step found it
    assert sent.data["message"]["node_id"] == "mail"
    assert WebhookDelivery.objects.filter(endpoint=endpoint).count() == 2


def test_with_no_endpoint_at_all_the_events_are_not_even_read():
    # The engine's release calls the outbox write on every step that announces something: with
    # no endpoint it must return before reading the events out of their JSON. An event id that
    # is no uuid shows it: read, it is refused.
    from django.db import connection
    from django.db.utils import DataError

    from events.sql import OUTBOX_SQL

    unreadable = json.dumps([{"event_id": "not-a-uuid", "gate": ""}])
    with connection.cursor() as cursor:
        cursor.execute(OUTBOX_SQL, {"events": unreadable})
        assert cursor.fetchone() == (None,)
    hook()
    with pytest.raises(DataError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(OUTBOX_SQL, {"events": unreadable})
