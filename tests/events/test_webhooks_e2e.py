"""Webhooks end to end: real workers run triggers, the dispatcher POSTs to a real receiver on
loopback, and the Standard Webhooks reference library verifies what arrived."""

from __future__ import annotations

import pytest

from events.models import DeliveryStatus, WebhookAttempt, WebhookDelivery
from tests.events.support import endpoint_on, types_of, verified
from tests.factories import WorkflowFactory, chain, email_node
from tests.support.stack import wait_for
from tests.workers.helpers import fire, wait_terminal

pytestmark = pytest.mark.e2e


def test_a_completed_run_is_announced_signed_as_a_cloud_event(api, receiver):
    endpoint, path = endpoint_on(receiver)
    workflow = WorkflowFactory(definition=chain(email_node("mail")))
    trigger_id = fire(api, workflow, {"email": "ok-hook@example.com", "name": "Al"})
    assert wait_terminal(trigger_id).status == "completed"

    got = receiver.wait_for(path, 2)
    # Each is POSTed by its own task: they may arrive in either order (data.sequence orders them).
    assert sorted(types_of(got)) == ["notiflow.message.sent", "notiflow.trigger.completed"]
    for request in got:
        event = verified(request, endpoint.secret)
        assert request.headers["webhook-id"] == event["id"]
        assert request.headers["content-type"] == "application/json"
        assert event["specversion"] == "1.0"
        assert event["source"] == "/notiflow"
        assert event["subject"] == trigger_id
        assert event["datacontenttype"] == "application/json"
        assert event["data"]["trigger"]["id"] == trigger_id
    by_type = {request.event["type"]: request.event for request in got}
    sent, completed = by_type["notiflow.message.sent"], by_type["notiflow.trigger.completed"]
    assert completed["data"]["trigger"]["status"] == "completed"
    assert completed["data"]["trigger"]["workflow"] == workflow.key
    assert sent["data"]["message"]["to"] == "ok-hook@example.com"
    assert sent["data"]["message"]["message_id"]
    assert sent["data"]["sequence"] < completed["data"]["sequence"]
    deliveries = WebhookDelivery.objects.filter(endpoint=endpoint)
    wait_for(
        lambda: all(d.status == DeliveryStatus.DELIVERED for d in deliveries.all()) or None,
        timeout=10,
        message="deliveries recorded as delivered",
    )
    assert WebhookAttempt.objects.filter(endpoint_id=endpoint.pk).count() == 2
