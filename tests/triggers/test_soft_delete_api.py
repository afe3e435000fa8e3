"""DELETE /api/triggers/<id>/ and `?deleted=` (docs/design/api.md, HTTP API and rule 12)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.triggers.support import new_trigger
from tests.workers.helpers import due_trigger, logged_failure
from triggers.models import TriggerEvent, TriggerInstance
from triggers.state import MAX_DELETE_REASON_LENGTH, trigger_delete

pytestmark = pytest.mark.django_db

ROOT = "/api/triggers/"


def delete(client, trigger_id: Any, body: Any = None):
    if body is None:
        return client.delete(f"{ROOT}{trigger_id}/")
    return client.delete(f"{ROOT}{trigger_id}/", body, format="json")


def test_delete_soft_deletes_and_answers_with_the_trigger(api_client):
    trigger = new_trigger()

    response = delete(api_client, trigger.pk, {"reason": "sent by mistake"})

    assert response.status_code == 200
    data = response.json()
    stored = TriggerInstance.objects.get(pk=trigger.pk)
    assert data["id"] == str(trigger.pk) and data["status"] == "enqueued"
    assert data["deleted_at"] is not None and data["delete_reason"] == "sent by mistake"
    assert stored.deleted_at is not None and stored.delete_reason == "sent by mistake"
    (event,) = TriggerEvent.objects.filter(trigger=trigger, reason__startswith="deleted")
    assert event.reason == "deleted: sent by mistake" and event.actor.startswith("api:")


def test_delete_again_is_200_and_changes_nothing(api_client):
    trigger = new_trigger()
    first = delete(api_client, trigger.pk, {"reason": "first"}).json()
    events = TriggerEvent.objects.filter(trigger=trigger).count()

    again = delete(api_client, trigger.pk, {"reason": "second"})

    assert again.status_code == 200
    assert (again.json()["deleted_at"], again.json()["delete_reason"]) == (
        first["deleted_at"],
        "first",
    )
    assert TriggerEvent.objects.filter(trigger=trigger).count() == events


def test_delete_without_a_body_has_an_empty_reason(api_client):
    trigger = new_trigger()
    response = delete(api_client, trigger.pk)
    assert response.status_code == 200 and response.json()["delete_reason"] == ""
    assert TriggerInstance.objects.get(pk=trigger.pk).deleted_at is not None


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"reason": 12}, "reason"),
        ({"reason": None}, "reason"),
        ({"reason": ["a"]}, "reason"),
        ({"reason": "x" * (MAX_DELETE_REASON_LENGTH + 1)}, "reason"),
        (["reason"], "body"),
    ],
    ids=["number", "null", "list", "too long", "not an object"],
)
def test_a_bad_body_is_400_naming_the_field_and_deletes_nothing(api_client, body, field):
    trigger = new_trigger()
    response = delete(api_client, trigger.pk, body)
    assert response.status_code == 400
    assert field in response.json()["errors"] and response.json()["detail"]
    assert TriggerInstance.objects.get(pk=trigger.pk).deleted_at is None


def test_a_reason_of_the_longest_allowed_length_is_kept(api_client):
    trigger = new_trigger()
    reason = "x" * MAX_DELETE_REASON_LENGTH
    assert delete(api_client, trigger.pk, {"reason": reason}).json()["delete_reason"] == reason


def test_malformed_json_is_400(api_client):
    trigger = new_trigger()
    response = api_client.generic(
        "DELETE", f"{ROOT}{trigger.pk}/", "{nope", content_type="application/json"
    )
    assert response.status_code == 400 and response.json()["detail"]


def test_delete_of_an_unknown_trigger_is_a_json_404(api_client):
    response = delete(api_client, "00000000-0000-0000-0000-000000000000")
    assert response.status_code == 404 and response.json()["detail"]
    assert delete(api_client, "not-a-uuid").status_code == 404


def test_delete_needs_an_api_key(client):
    trigger = new_trigger()
    assert client.delete(f"{ROOT}{trigger.pk}/").status_code == 401
    assert TriggerInstance.objects.get(pk=trigger.pk).deleted_at is None


def listed(api_client, query: str, workflow_key: str) -> set[str]:
    response = api_client.get(f"{ROOT}?workflow={workflow_key}{query}")
    assert response.status_code == 200, response.content
    return {item["id"] for item in response.json()["results"]}


def test_the_list_leaves_deleted_triggers_out_unless_asked_for_them(api_client):
    kept = new_trigger()
    gone = new_trigger(kept.workflow)
    trigger_delete(trigger_id=gone.pk, actor="ops")
    key = kept.workflow.key

    assert listed(api_client, "", key) == {str(kept.pk)}
    assert listed(api_client, "&deleted=false", key) == {str(kept.pk)}
    assert listed(api_client, "&deleted=true", key) == {str(gone.pk)}
    assert listed(api_client, "&deleted=true&status=enqueued", key) == {str(gone.pk)}


@pytest.mark.parametrize("value", ["yes", "1", "True", ""])
def test_another_deleted_value_is_400_naming_it(api_client, value):
    response = api_client.get(f"{ROOT}?deleted={value}")
    assert response.status_code == 400 and "deleted" in response.json()["errors"]


def test_a_deleted_trigger_and_its_logs_are_still_readable(api_client):
    trigger = due_trigger()
    logged_failure(trigger, attempt=1)
    trigger_delete(trigger_id=trigger.pk, actor="ops", reason="r")

    detail = api_client.get(f"{ROOT}{trigger.pk}/")
    logs = api_client.get(f"{ROOT}{trigger.pk}/logs/")

    assert detail.status_code == 200 and detail.json()["delete_reason"] == "r"
    assert logs.status_code == 200
    assert [log["node_id"] for log in logs.json()] == ["mail"]


def test_the_schema_shows_the_delete_its_body_the_filter_and_the_fields(api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/triggers/{trigger_id}/"]["delete"]
    body = operation["requestBody"]
    assert body["required"] is False
    reason = body["content"]["application/json"]["schema"]["properties"]["reason"]
    assert (reason["type"], reason["maxLength"]) == ("string", MAX_DELETE_REASON_LENGTH)
    answer = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert answer["$ref"].endswith("/TriggerOutput")
    (deleted,) = [p for p in schema["paths"][ROOT]["get"]["parameters"] if p["name"] == "deleted"]
    assert sorted(deleted["schema"]["enum"]) == ["false", "true"]
    fields = schema["components"]["schemas"]["TriggerOutput"]["properties"]
    assert fields["deleted_at"]["format"] == "date-time" and fields["deleted_at"]["nullable"]
    assert fields["delete_reason"]["type"] == "string"
