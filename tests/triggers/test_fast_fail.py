"""Fast-fail at trigger time (docs/design/api.md, "HTTP API"): while NOTIFLOW_TRIGGER_REQUIRES_WORKER
is on, a trigger whose workflow's queue no live worker serves is refused with 503, naming the
queue and the command that would serve it, and nothing is stored. The test process turns the
check off (tests/settings.py); these tests turn it back on."""

from __future__ import annotations

import pytest

from registry.services import worker_stop
from tests.factories import WorkflowFactory, chain, delay_node
from tests.registry.support import registered, seen_ago
from triggers.models import TriggerEvent, TriggerInstance

pytestmark = pytest.mark.django_db

REFUSED = (
    "no live worker serves queue 'billing'; start one with: "
    "celery -A notiflow worker -Q billing -n billing@%h"
)


@pytest.fixture
def check_on(settings) -> None:
    settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER = True


@pytest.fixture
def billing():
    return WorkflowFactory(key="billing.invoice_due.v1", definition=chain(delay_node()))


def fire(api_client, workflow, key: str = "k1"):
    body = {"workflow": workflow.key, "idempotency_key": key, "payload": {}}
    return api_client.post("/api/triggers/", body, format="json")


def assert_refused_and_nothing_stored(response, workflow) -> None:
    assert response.status_code == 503, response.content
    assert response.json() == {"detail": REFUSED, "errors": {"workflow": [REFUSED]}}
    assert not TriggerInstance.objects.filter(workflow=workflow).exists()
    assert not TriggerEvent.objects.filter(trigger__workflow=workflow).exists()


def test_no_worker_registered_for_the_queue_is_503_naming_queue_and_command(
    check_on, api_client, billing
):
    registered("default@h", queues=("default",))  # serves another queue: no help
    assert_refused_and_nothing_stored(fire(api_client, billing), billing)


def test_only_a_stale_worker_for_the_queue_is_503(check_on, api_client, billing):
    seen_ago(registered("billing@h", queues=("billing",)), 31)  # three heartbeats missed
    assert_refused_and_nothing_stored(fire(api_client, billing), billing)


def test_only_a_stopped_worker_for_the_queue_is_503(check_on, api_client, billing):
    registered("billing@h", queues=("billing",))
    worker_stop(name="billing@h")
    assert_refused_and_nothing_stored(fire(api_client, billing), billing)


def test_a_live_worker_for_the_queue_makes_it_201(check_on, api_client, billing):
    registered("billing@h", queues=("billing", "default"))
    response = fire(api_client, billing)
    assert response.status_code == 201, response.content
    assert TriggerInstance.objects.filter(workflow=billing).count() == 1


def test_an_undotted_key_needs_a_worker_on_the_default_queue(check_on, api_client):
    workflow = WorkflowFactory(key="welcome-mail", definition=chain(delay_node()))
    registered("billing@h", queues=("billing",))
    response = fire(api_client, workflow)
    assert response.status_code == 503
    assert "queue 'default'" in response.json()["detail"]
    registered("default@h", queues=("default",))
    assert fire(api_client, workflow).status_code == 201


def test_with_the_check_off_a_trigger_is_accepted_without_any_worker(settings, api_client, billing):
    settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER = False
    response = fire(api_client, billing)
    assert response.status_code == 201
    assert TriggerInstance.objects.get(pk=response.json()["id"]).status == "enqueued"


def test_a_repeated_key_gets_its_trigger_even_while_nobody_serves_the_queue(
    check_on, api_client, billing
):
    # Accepted while a worker was live, asked again once it stopped (a client retrying after a
    # lost answer): the trigger was stored, so the answer is the trigger, not a 503.
    registered("billing@h", queues=("billing",))
    first = fire(api_client, billing, key="same")
    assert first.status_code == 201
    worker_stop(name="billing@h")
    again = fire(api_client, billing, key="same")
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    assert fire(api_client, billing, key="other").status_code == 503
    assert TriggerInstance.objects.filter(workflow=billing).count() == 1


def test_the_schema_documents_the_503():
    from rest_framework.test import APIClient

    schema = APIClient().get("/api/schema/?format=json").json()
    responses = schema["paths"]["/api/triggers/"]["post"]["responses"]
    assert "503" in responses
    assert "no live worker" in responses["503"]["description"]
