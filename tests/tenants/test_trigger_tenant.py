"""A trigger's `tenant` (docs/tenants.md): taken by POST /api/triggers/, each bulk item and a
topic's fan-out (given to each of its runs), stored on the run and shown; an unknown one is a
400 naming `tenant` and stores nothing; part of the request a key is first used with; the runs
list filters by it."""

from __future__ import annotations

import pytest

from recipients.models import Fanout, Recipient, Topic, TopicSubscription
from tenants.models import Tenant, TenantChange
from tenants.selectors import TENANTS
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node
from triggers.fanout import fanout_chunk
from triggers.models import TriggerInstance
from triggers.services import request_hash

pytestmark = pytest.mark.django_db


@pytest.fixture
def workflow():
    return WorkflowFactory(definition=chain(delay_node("wait", duration="1h")))


def body(workflow, **fields):
    return {"workflow": workflow.key, "idempotency_key": unique("k"), "payload": {}, **fields}


def test_a_trigger_keeps_its_tenant_and_shows_it(api_client, workflow, acme):
    response = api_client.post("/api/triggers/", body(workflow, tenant="acme"), format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["tenant"] == "acme"
    assert TriggerInstance.objects.get(pk=response.json()["id"]).tenant == "acme"
    plain = api_client.post("/api/triggers/", body(workflow), format="json")
    assert plain.json()["tenant"] == ""


@pytest.mark.parametrize("tenant", ["nobody", "-bad", 7])
def test_an_unknown_tenant_is_a_400_naming_it_and_stores_nothing(
    api_client, workflow, acme, tenant
):
    response = api_client.post("/api/triggers/", body(workflow, tenant=tenant), format="json")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["tenant"]
    assert not TriggerInstance.objects.filter(workflow=workflow).exists()


def test_a_tenant_made_by_another_process_a_moment_ago_is_known(api_client, workflow, acme):
    TENANTS.value()  # this process's copy, without the tenant made below
    # What another process's tenant_put leaves (its own copy forgets; this one's does not).
    Tenant.objects.create(id="globex", name="Globex", updated_at="2026-01-01T00:00Z")
    TenantChange.objects.create(tenant="globex", change="put")
    response = api_client.post("/api/triggers/", body(workflow, tenant="globex"), format="json")
    assert response.status_code == 201, response.json()


def test_each_bulk_item_takes_its_tenant_and_an_unknown_one_is_that_items_400(
    api_client, workflow, acme
):
    items = [body(workflow, tenant="acme"), body(workflow, tenant="nobody"), body(workflow)]
    results = api_client.post("/api/triggers/bulk/", {"triggers": items}, format="json")
    first, second, third = results.json()["results"]
    assert (first["status"], first["trigger"]["tenant"]) == (201, "acme")
    assert (second["status"], list(second["errors"])) == (400, ["tenant"])
    assert (third["status"], third["trigger"]["tenant"]) == (201, "")


def test_the_same_key_with_another_tenant_is_another_request(api_client, workflow, acme):
    first = body(workflow, tenant="acme")
    assert api_client.post("/api/triggers/", first, format="json").status_code == 201
    assert api_client.post("/api/triggers/", first, format="json").status_code == 200
    other = api_client.post("/api/triggers/", {**first, "tenant": ""}, format="json")
    assert other.status_code == 422
    assert "differing: tenant" in other.json()["detail"]


def test_a_topic_gives_its_tenant_to_each_run_with_intakes_request_hash(
    api_client, workflow, acme, django_capture_on_commit_callbacks
):
    topic = Topic.objects.create(key=unique("topic"))
    keys = [unique("user") for _ in range(3)]
    Recipient.objects.bulk_create([Recipient(key=key) for key in keys])
    TopicSubscription.objects.bulk_create(
        [TopicSubscription(topic=topic, recipient_id=key) for key in keys]
    )
    unknown = api_client.post(
        "/api/triggers/", body(workflow, topic=topic.key, tenant="nobody"), format="json"
    )
    assert unknown.status_code == 400 and list(unknown.json()["errors"]) == ["tenant"]
    assert not Fanout.objects.exists()

    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(
            "/api/triggers/",
            body(workflow, topic=topic.key, tenant="acme", payload={"n": 1}),
            format="json",
        )
    assert response.status_code == 202, response.json()
    assert response.json()["tenant"] == "acme"
    fanout_chunk(fanout_id=response.json()["fanout_id"], worker_id="w")
    runs = list(TriggerInstance.objects.filter(workflow=workflow))
    assert sorted(run.recipient for run in runs) == sorted(keys)
    assert {run.tenant for run in runs} == {"acme"}
    for run in runs:  # what intake would have stored for the same request
        assert run.request_hash == request_hash(
            payload_json='{"n":1}',
            priority=None,
            cancellation_key="",
            recipient=run.recipient,
            tenant="acme",
        )


def test_the_runs_list_filters_by_tenant(api_client, workflow, acme):
    mine = api_client.post("/api/triggers/", body(workflow, tenant="acme"), format="json")
    api_client.post("/api/triggers/", body(workflow), format="json")
    listed = api_client.get("/api/triggers/", {"tenant": "acme"}).json()["results"]
    assert [run["id"] for run in listed] == [mine.json()["id"]]
    assert api_client.get("/api/triggers/", {"tenant": ""}).status_code == 400


def test_a_key_limited_to_workflows_may_name_a_tenant_in_a_trigger_of_its_own(workflow, acme):
    from rest_framework.test import APIClient

    from triggers.api_keys import api_key_create

    _, secret = api_key_create(name=unique("limited"), workflows=[workflow.key])
    limited = APIClient()
    limited.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    response = limited.post("/api/triggers/", body(workflow, tenant="acme"), format="json")
    assert response.status_code == 201 and response.json()["tenant"] == "acme"
    assert limited.get("/api/tenants/acme/").status_code == 403
    assert limited.get("/api/triggers/", {"tenant": "acme"}).json()["count"] == 1
