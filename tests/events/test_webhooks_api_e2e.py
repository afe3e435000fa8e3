"""The webhook API and admin with the real stack: gunicorn answers /api/webhooks/, the stack's
workers deliver to the loopback receiver, and the Standard Webhooks reference library verifies
what arrives. Each endpoint listens to one workflow of its own, and is deleted at the end."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from events.models import DeliveryStatus, OutboxEvent, WebhookAttempt, WebhookDelivery
from tests.conftest import Api, unique
from tests.events.support import verified
from tests.factories import WorkflowFactory, chain, delay_node
from tests.support.receiver import Receiver
from tests.support.stack import wait_for
from tests.workers.helpers import fire, wait_terminal

pytestmark = pytest.mark.e2e

ROOT = "/api/webhooks/"


class Hooks:
    """Endpoints made through the API for one test, on the receiver under paths of their own."""

    def __init__(self, api: Api, receiver: Receiver):
        self.api, self.receiver = api, receiver
        self.made: list[str] = []

    def make(self, workflow: Any, events: list[str] | None = None) -> tuple[dict[str, Any], str]:
        path = f"/ok/{unique('hook')}"
        body = {
            "url": self.receiver.url(path),
            "events": events or ["*"],
            "workflows": [workflow.key],
        }
        response = self.api.post(ROOT, body)
        assert response.status_code == 201, response.text
        self.made.append(response.json()["id"])
        return response.json(), path


@pytest.fixture
def hooks(api, receiver) -> Iterator[Hooks]:
    made = Hooks(api, receiver)
    yield made
    for endpoint_id in made.made:
        api.delete(f"{ROOT}{endpoint_id}/")


def a_workflow() -> Any:
    return WorkflowFactory(definition=chain(delay_node("wait", delay_ms=0)))


def nothing_arrives(receiver: Receiver, path: str, *, within: float) -> None:
    """Fail as soon as a request reaches `path`, watching for `within` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        assert receiver.received(path) == [], f"a request reached {path}"
        time.sleep(0.05)


def test_the_test_ping_reaches_the_receiver_signed_and_is_listed(api, receiver, hooks):
    endpoint, path = hooks.make(a_workflow(), events=["trigger.deleted"])

    response = api.post(f"{ROOT}{endpoint['id']}/test/", None)

    assert response.status_code == 202, response.text
    ping = response.json()
    (request,) = receiver.wait_for(path, 1, timeout=15)
    event = verified(request, endpoint["secret"])
    assert request.webhook_id == event["id"] == ping["event_id"]
    assert event["type"] == ping["type"] == "notiflow.ping"

    def listed() -> list[dict[str, Any]]:
        attempts = api.get(f"{ROOT}{endpoint['id']}/deliveries/").json()["results"]
        # On record from before the POST, `started`, until its outcome is written.
        return attempts if attempts and attempts[0]["state"] == "finished" else []

    (attempt,) = wait_for(listed, timeout=10, message="the ping's attempt listed, finished")
    assert (attempt["event_id"], attempt["event_type"]) == (ping["event_id"], "notiflow.ping")
    assert attempt["status_code"] == 200 and attempt["attempt"] == 1


def test_the_admins_resend_sends_the_event_again_with_the_same_webhook_id(
    api, receiver, hooks, operator
):
    workflow = a_workflow()
    endpoint, path = hooks.make(workflow, events=["trigger.completed"])
    trigger_id = fire(api, workflow, {})
    assert wait_terminal(trigger_id).status == "completed"
    (first,) = receiver.wait_for(path, 1, timeout=15)
    event = OutboxEvent.objects.get(event_id=first.webhook_id)
    delivery = WebhookDelivery.objects.filter(event=event, endpoint_id=endpoint["id"])
    wait_for(
        lambda: delivery.get().status == DeliveryStatus.DELIVERED,
        timeout=10,
        message="the first delivery recorded",
    )

    response = operator.post(
        "/admin/events/outboxevent/",
        {"action": "resend_selected", "_selected_action": [event.pk]},
    )

    assert response.status_code == 302
    first, again = receiver.wait_for(path, 2, timeout=15)
    assert again.webhook_id == first.webhook_id == str(event.event_id)
    assert again.body == first.body  # the same event, byte for byte; signed afresh
    assert verified(again, endpoint["secret"])["subject"] == trigger_id
    wait_for(
        lambda: delivery.get().status == DeliveryStatus.DELIVERED,
        timeout=10,
        message="the resent delivery recorded",
    )
    assert delivery.get().attempts == 1
    assert WebhookAttempt.objects.filter(event_id=event.event_id).count() == 2


def test_enabling_a_disabled_endpoint_delivers_the_events_it_kept(api, receiver, hooks):
    workflow = a_workflow()
    kept, kept_path = hooks.make(workflow, events=["trigger.completed"])
    sibling, sibling_path = hooks.make(workflow, events=["trigger.completed"])
    disabled = api.patch(f"{ROOT}{kept['id']}/", {"enabled": False})
    assert disabled.status_code == 200 and disabled.json()["enabled"] is False

    trigger_id = fire(api, workflow, {})
    assert wait_terminal(trigger_id).status == "completed"

    # The sibling, enabled, gets the event: the dispatcher ran. The disabled one gets nothing,
    # through a few of the sweeper's intervals (one second each in the stack).
    (announced,) = receiver.wait_for(sibling_path, 1, timeout=15)
    assert verified(announced, sibling["secret"])["subject"] == trigger_id
    nothing_arrives(receiver, kept_path, within=3)
    waiting = WebhookDelivery.objects.get(endpoint_id=kept["id"])
    assert waiting.status == DeliveryStatus.PENDING and waiting.attempts == 0
    assert not WebhookAttempt.objects.filter(endpoint_id=kept["id"]).exists()

    enabled = api.patch(f"{ROOT}{kept['id']}/", {"enabled": True})

    assert enabled.status_code == 200 and enabled.json()["enabled"] is True
    (request,) = receiver.wait_for(kept_path, 1, timeout=15)
    event = verified(request, kept["secret"])
    assert request.webhook_id == announced.webhook_id  # one event, two endpoints
    assert event["type"] == "notiflow.trigger.completed" and event["subject"] == trigger_id
    wait_for(
        lambda: WebhookDelivery.objects.get(pk=waiting.pk).status == DeliveryStatus.DELIVERED,
        timeout=10,
        message="the kept delivery recorded",
    )
