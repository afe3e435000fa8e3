"""notiflow-client (clients/python) against the live stack: gunicorn, Celery workers and beat
(tests/support/stack.py). Each call the package names reaches its endpoint and comes back typed;
a key reused with other parameters is an IdempotencyConflict naming the run; a queue no worker
serves is retried and raised as Unavailable; a webhook the stack signs is verified; the typed
answers cover the schema's fields."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from typing import Any

import pytest
import requests
from notiflow_client import (
    AsyncNotiflow,
    BadRequest,
    Fanout,
    IdempotencyConflict,
    NotFound,
    Notiflow,
    Run,
    Unavailable,
    __version__,
)
from notiflow_client import models as client_models
from notiflow_client.webhooks import WebhookVerificationError, verify

from tests.conftest import unique
from tests.factories import chain, delay_node
from tests.inbox.test_inapp_node import inapp_node

pytestmark = pytest.mark.e2e
# Runs that wait a minute before their last node: still unfinished while a test cancels them.
WAITING = (delay_node("wait", delay_ms=60_000), delay_node("after"))


@pytest.fixture
def notiflow(e2e) -> Notiflow:
    with Notiflow(e2e.base_url, e2e.env["API_KEY"]) as client:
        yield client


def workflow_create(client: Notiflow, *nodes: dict[str, Any], key: str = "") -> str:
    """A workflow made over the API, through the client's low-level call (as the CLI does)."""
    key = key or unique("client")
    client.request("POST", "/api/workflows/", json={"key": key, "name": key, **chain(*nodes)})
    return key


def test_a_trigger_with_a_profile_runs_to_its_end_and_a_replay_finds_the_same_run(notiflow):
    workflow = workflow_create(notiflow, inapp_node())
    person = unique("person")
    run = notiflow.trigger(
        workflow,
        payload={"name": "Ada", "amount": "3"},
        recipient={"id": person, "name": "Ada", "email": "ada@example.com"},
        wait=20,
    )
    assert isinstance(run, Run) and run.status == "completed" and run.finished
    assert run.recipient == person and run.completed_at is not None
    assert run.vars["inapp_bell"]["recipient"] == person
    replay = notiflow.trigger(
        workflow,
        payload={"name": "Ada", "amount": "3"},
        recipient=person,
        idempotency_key=run.idempotency_key,
    )
    assert replay.id == run.id
    with pytest.raises(IdempotencyConflict) as conflict:
        notiflow.trigger(
            workflow, payload={"name": "Bo"}, recipient=person, idempotency_key=run.idempotency_key
        )
    assert conflict.value.existing_trigger_id == run.id and "payload" in conflict.value.detail

    (log,) = notiflow.runs.logs(run.id)
    assert log.node_id == "bell" and log.success and log.trigger == run.id
    assert [listed.id for listed in notiflow.runs.list(recipient=person)] == [run.id]
    assert notiflow.recipients.get(person).email == "ada@example.com"


def test_runs_are_cancelled_one_by_one_or_by_their_cancellation_key(notiflow):
    workflow = workflow_create(notiflow, *WAITING)
    one = notiflow.trigger(workflow)
    assert notiflow.runs.cancel(one.id).status == "cancelled"
    marked = [notiflow.trigger(workflow, cancellation_key="order-9") for _ in range(2)]
    cancelled = notiflow.runs.cancel_by_key("order-9", workflow=workflow)
    assert cancelled.cancelled == 2 and sorted(cancelled.ids) == sorted(run.id for run in marked)
    assert notiflow.runs.get(marked[0].id).status == "cancelled"


def test_bulk_items_come_back_in_order_each_with_its_outcome(notiflow):
    workflow = workflow_create(notiflow, *WAITING)
    first, missing = notiflow.trigger_bulk([{"workflow": workflow}, {"workflow": "no-such-flow"}])
    assert first.status == 201 and first.run is not None and first.run.workflow == workflow
    assert missing.status == 400 and isinstance(missing.error, BadRequest) and missing.run is None


def test_events_recipients_preferences_and_topics(notiflow):
    person, topic = unique("person"), unique("topic")
    assert notiflow.recipients.upsert(person, name="Ada", locale="en").name == "Ada"
    assert notiflow.recipients.upsert(person, timezone="Europe/Paris").name == "Ada"  # merged
    stored = notiflow.recipients.preferences.set(person, {"channels": {"sms": False}})
    assert (
        stored["channels"]
        == {"sms": False}
        == notiflow.recipients.preferences.get(person)["channels"]
    )
    assert notiflow.recipients.inbox_token(
        person
    )  # the server's: tests/client/test_django_tag_e2e.py

    assert notiflow.topics.upsert(topic, name="News").subscribers == 0
    changes = notiflow.topics.subscribe(topic, [person, "nobody-" + person])
    assert [change.status for change in changes] == [201, 404]
    assert [s.recipient for s in notiflow.topics.subscribers(topic)] == [person]
    assert [t.key for t in notiflow.recipients.topics(person)] == [topic]

    workflow = workflow_create(notiflow, *WAITING)
    fanout = notiflow.trigger(workflow, topic=topic)
    assert isinstance(fanout, Fanout) and fanout.topic == topic
    assert notiflow.fanouts.get(fanout.id).fanout_id == fanout.id

    event = notiflow.events.send("client.test", unique("evt"), {"n": 1})
    assert event.name == "client.test" and event.resumed == 0
    erased = notiflow.recipients.delete(person)
    assert erased["id"] == person and erased["erased"]["topic_subscriptions"] == 1
    with pytest.raises(NotFound):
        notiflow.recipients.get(person)


def test_an_unknown_run_is_not_found_and_an_unknown_workflow_a_bad_request(notiflow):
    with pytest.raises(NotFound):
        notiflow.runs.get(str(uuid.uuid4()))
    with pytest.raises(BadRequest) as refused:
        notiflow.trigger("no-such-flow")
    assert "no-such-flow" in refused.value.detail


def test_a_queue_no_worker_serves_is_retried_then_unavailable_naming_it(e2e):
    with Notiflow(e2e.base_url, e2e.env["API_KEY"], retries=1) as notiflow:
        workflow = workflow_create(notiflow, delay_node(), key=f"{unique('nobody')}.flow")
        with pytest.raises(Unavailable) as unavailable:
            notiflow.trigger(workflow)
    assert (
        unavailable.value.status == 503 and "celery -A notiflow worker" in unavailable.value.detail
    )


def test_the_async_client_triggers_and_waits(e2e):
    async def scenario() -> Run:
        async with AsyncNotiflow(e2e.base_url, e2e.env["API_KEY"]) as notiflow:
            key = unique("async")
            definition = {"key": key, "name": key, **chain(delay_node())}
            workflow = await notiflow.request("POST", "/api/workflows/", json=definition)
            return await notiflow.trigger(workflow["key"], wait=20)

    assert asyncio.run(scenario()).status == "completed"


def test_a_webhook_the_stack_delivers_is_verified_by_the_client(notiflow, receiver):
    path = f"/ok/{unique('client')}"
    workflow = workflow_create(notiflow, delay_node())
    endpoint = notiflow.request(
        "POST",
        "/api/webhooks/",
        json={"url": receiver.url(path), "events": ["trigger.completed"], "workflows": [workflow]},
    )
    run = notiflow.trigger(workflow, wait=20)
    (delivered,) = receiver.wait_for(path, 1)
    event = verify(delivered.body, delivered.headers, endpoint["secret"])
    assert event["type"] == "notiflow.trigger.completed" and event["subject"] == run.id
    with pytest.raises(WebhookVerificationError):
        verify(
            delivered.body.replace(b"completed", b"failed"), delivered.headers, endpoint["secret"]
        )
    notiflow.request("DELETE", f"/api/webhooks/{endpoint['id']}/")


def test_a_run_for_a_tenant_renders_with_it_sync_async_bulk_and_topic(notiflow, e2e):
    """The tenant's resource over the client, then runs for it each way the client triggers: the
    stack's worker renders `tenant.name`, which a run without a tenant cannot (strict templates)."""
    tenant_id = unique("acme")
    made = notiflow.tenants.put(tenant_id, name="Acme", properties={"sign": "A"})
    assert isinstance(made, client_models.Tenant) and made.properties == {"sign": "A"}
    assert notiflow.tenants.get(tenant_id).name == "Acme"
    assert tenant_id in [t.id for t in notiflow.tenants.list()]
    workflow = workflow_create(notiflow, inapp_node(title="From {{ tenant.name }}", body="Hi"))
    person = unique("person")

    run = notiflow.trigger(workflow, recipient={"id": person}, tenant=tenant_id, wait=20)
    assert (run.tenant, run.status) == (tenant_id, "completed"), run.last_error
    (log,) = notiflow.runs.logs(run.id)
    assert log.input["tenant"]["name"] == "Acme"
    assert notiflow.trigger(workflow, recipient=person, wait=20).status == "failed"

    async def scenario() -> Run:
        async with AsyncNotiflow(e2e.base_url, e2e.env["API_KEY"]) as client:
            assert (await client.tenants.get(tenant_id)).id == tenant_id
            return await client.trigger(workflow, recipient=person, tenant=tenant_id, wait=20)

    assert asyncio.run(scenario()).status == "completed"
    (item,) = notiflow.trigger_bulk(
        [{"workflow": workflow, "recipient": person, "tenant": tenant_id}]
    )
    assert item.run is not None and item.run.tenant == tenant_id
    topic = unique("topic")
    notiflow.topics.upsert(topic, name="News")
    notiflow.topics.subscribe(topic, [person])
    fanout = notiflow.trigger(workflow, topic=topic, tenant=tenant_id)
    assert isinstance(fanout, Fanout) and fanout.tenant == tenant_id
    with pytest.raises(BadRequest) as refused:
        notiflow.trigger(workflow, recipient=person, tenant=unique("nobody"))
    assert "tenant" in refused.value.errors

    notiflow.tenants.delete(tenant_id)
    with pytest.raises(NotFound):
        notiflow.tenants.get(tenant_id)


SCHEMA_OF = {
    client_models.Run: "TriggerOutput",
    client_models.Fanout: "FanoutCancelOutput",
    client_models.StepLog: "StepLog",
    client_models.Delivery: "DeliveryEvent",
    client_models.Cancelled: "TriggerCancelByKeyOutput",
    client_models.EventResult: "EventOutput",
    client_models.Recipient: "RecipientOutput",
    client_models.Topic: "TopicOutput",
    client_models.Subscription: "RecipientTopic",
    client_models.Tenant: "TenantOutput",
}


def test_the_typed_answers_name_every_field_of_the_schema_and_its_version(e2e):
    schema = requests.get(f"{e2e.base_url}/api/schema/?format=json", timeout=10).json()
    assert schema["info"]["version"] == __version__
    components = schema["components"]["schemas"]
    for model, component in SCHEMA_OF.items():
        named = {field.name for field in dataclasses.fields(model)} - {"raw"}
        assert named == set(components[component]["properties"]), model.__name__
