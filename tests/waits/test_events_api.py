"""POST /api/events/ and /api/events/bulk/: scope trigger, idempotent by id (201/200/422),
unknown fields a 400, the key's workflow limit, and how many runs it resumed."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.conftest import unique
from tests.waits.test_wait_event import parked
from triggers.api_keys import api_key_create
from triggers.models import ApiKeyScope, TriggerInstance

pytestmark = [pytest.mark.django_db]


def client_for(*, scope=ApiKeyScope.TRIGGER, workflows=()) -> APIClient:
    _, key = api_key_create(name=unique("k"), scope=scope, workflows=list(workflows))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def test_an_event_resumes_the_waiting_run_and_is_idempotent_by_id():
    trigger = parked()
    client = client_for()
    body = {"name": "order.paid", "id": "evt_1", "data": {"order_id": "o-1"}}
    first = client.post("/api/events/", body, format="json")
    assert first.status_code == 201, first.content
    assert first.json() == {"id": "evt_1", "name": "order.paid", "resumed": 1}
    trigger.refresh_from_db()
    assert trigger.status == "enqueued"
    again = client.post("/api/events/", body, format="json")
    assert (again.status_code, again.json()["resumed"]) == (200, 0)
    other = client.post("/api/events/", {**body, "data": {"order_id": "o-2"}}, format="json")
    assert other.status_code == 422 and "id" in other.json()["errors"]


def test_unknown_fields_and_bad_values_are_a_400_naming_them():
    client = client_for()
    response = client.post("/api/events/", {"name": "x", "id": "1", "colour": 1}, format="json")
    assert response.status_code == 400 and "colour" in response.json()["errors"]
    response = client.post("/api/events/", {"name": "x", "id": 5}, format="json")
    assert response.status_code == 400 and "id" in response.json()["errors"]
    response = client.post("/api/events/", {"name": "x", "id": "1", "data": [1]}, format="json")
    assert response.status_code == 400 and "data" in response.json()["errors"]


def test_a_key_limited_to_other_workflows_resumes_nothing():
    trigger = parked()
    limited = client_for(workflows=["someone-else"])
    body = {"name": "order.paid", "id": "evt_l", "data": {"order_id": "o-1"}}
    response = limited.post("/api/events/", body, format="json")
    assert (response.status_code, response.json()["resumed"]) == (201, 0)
    assert TriggerInstance.objects.get(pk=trigger.pk).status == "waiting"
    allowed = client_for(workflows=[trigger.workflow.key])
    body["id"] = "evt_m"
    assert allowed.post("/api/events/", body, format="json").json()["resumed"] == 1


def test_bulk_decides_each_event_alone():
    runs = [parked(), parked(match={"order_id": "{{ payload.name }}"})]
    client = client_for()
    events = [
        {"name": "order.paid", "id": "b1", "data": {"order_id": "o-1"}},
        {"name": "order.paid", "id": "b1", "data": {"order_id": "changed"}},
        {"name": "order.paid", "id": "b2", "data": {"order_id": "Ada"}},
        {"name": "order.paid", "id": "b3", "oops": True},
        "not an object",
    ]
    response = client.post("/api/events/bulk/", {"events": events}, format="json")
    assert response.status_code == 200, response.content
    results = response.json()["results"]
    assert [r["status"] for r in results] == [201, 422, 201, 400, 400]
    assert [r.get("resumed") for r in results[:3]] == [1, None, 1]
    assert {t.status for t in TriggerInstance.objects.filter(pk__in=[r.pk for r in runs])} == {
        "enqueued"
    }
    too_many = [{"name": "x", "id": str(n)} for n in range(1001)]
    assert client.post("/api/events/bulk/", {"events": too_many}, format="json").status_code == 400


def test_posting_events_needs_an_api_key():
    response = APIClient().post("/api/events/", {"name": "x", "id": "1"}, format="json")
    assert response.status_code == 401


def test_a_waiting_run_shows_as_waiting_in_the_api_and_the_stats(admin_client):
    trigger = parked()
    client = client_for()
    assert client.get(f"/api/triggers/{trigger.pk}/").json()["status"] == "waiting"
    listed = client.get("/api/triggers/", {"status": "waiting"}).json()
    assert str(trigger.pk) in {item["id"] for item in listed["results"]}
    stats = client.get(f"/api/workflows/{trigger.workflow.key}/stats/").json()
    assert stats["by_status"]["waiting"] == 1
    page = admin_client.get("/admin/waits/eventwait/")
    assert page.status_code == 200 and str(trigger.pk)[:8] in page.content.decode()
    assert "order.paid" in page.content.decode()
