"""Trigger intake: the inbox contract of docs/design/api.md (201 new, 200 existing, 4xx bad input)."""

import pytest

from tests.conftest import unique
from tests.factories import WorkflowFactory
from triggers.models import TriggerEvent, TriggerInstance

pytestmark = pytest.mark.django_db


@pytest.fixture
def workflow():
    return WorkflowFactory()


def post(client, body, **headers):
    return client.post("/api/triggers/", body, format="json", **headers)


def test_new_trigger_is_enqueued_at_entry_pinned_to_version(api_client, workflow):
    response = post(
        api_client,
        {"workflow": workflow.key, "idempotency_key": "k1", "payload": {"email": "a@example.com"}},
    )
    assert response.status_code == 201
    data = response.json()
    assert data["status"] == "enqueued" and data["attempts"] == 0
    assert data["cursor"] == {"current_node_id": "email"} and data["vars"] == {}
    assert data["workflow"] == workflow.key and data["workflow_version"] == 1
    trigger = TriggerInstance.objects.get(pk=data["id"])
    assert trigger.workflow_version_id == workflow.current_version_id
    assert trigger.available_at <= trigger.created_at
    assert list(trigger.events.values_list("to_status", flat=True)) == ["enqueued"]


def test_duplicate_idempotency_key_returns_existing_trigger(api_client, workflow):
    first = post(
        api_client, {"workflow": workflow.key, "idempotency_key": "dup", "payload": {"a": 1}}
    )
    second = post(
        api_client, {"workflow": workflow.key, "idempotency_key": "dup", "payload": {"a": 1}}
    )
    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json() == first.json()
    assert TriggerInstance.objects.filter(workflow=workflow).count() == 1


def test_same_key_on_another_workflow_is_a_new_trigger(api_client, workflow):
    other = WorkflowFactory()
    assert post(api_client, {"workflow": workflow.key, "idempotency_key": "k"}).status_code == 201
    assert post(api_client, {"workflow": other.key, "idempotency_key": "k"}).status_code == 201


def test_idempotency_key_from_header(api_client, workflow):
    response = post(api_client, {"workflow": workflow.key}, HTTP_IDEMPOTENCY_KEY="hdr-1")
    assert response.status_code == 201 and response.json()["idempotency_key"] == "hdr-1"


def test_header_and_body_keys_must_agree(api_client, workflow):
    response = post(
        api_client, {"workflow": workflow.key, "idempotency_key": "a"}, HTTP_IDEMPOTENCY_KEY="b"
    )
    assert response.status_code == 400 and "idempotency_key" in response.json()["errors"]


@pytest.mark.parametrize(
    ("body", "field", "status"),
    [
        ({"workflow": None, "idempotency_key": "k"}, "workflow", 400),
        ({"workflow": "no-such-workflow", "idempotency_key": "k"}, "workflow", 400),
        ({"idempotency_key": ""}, "idempotency_key", 400),
        ({"idempotency_key": "   "}, "idempotency_key", 400),
        ({"idempotency_key": "x" * 256}, "idempotency_key", 400),
        ({}, "idempotency_key", 400),
        ({"idempotency_key": "k", "payload": [1, 2]}, "payload", 400),
        ({"idempotency_key": "k", "payload": "text"}, "payload", 400),
    ],
)
def test_bad_trigger_requests_name_the_field_and_save_nothing(
    api_client, workflow, body, field, status
):
    body = {"workflow": workflow.key, **body}
    response = post(api_client, body)
    assert response.status_code == status, response.json()
    assert field in response.json()["errors"]
    assert field in response.json()["detail"] or field == "workflow"
    assert not TriggerInstance.objects.filter(workflow=workflow).exists()


def test_key_of_255_chars_is_fine(api_client, workflow):
    assert (
        post(api_client, {"workflow": workflow.key, "idempotency_key": "x" * 255}).status_code
        == 201
    )


def test_inactive_workflow_is_refused(api_client):
    workflow = WorkflowFactory(active=False)
    response = post(api_client, {"workflow": workflow.key, "idempotency_key": "k"})
    assert response.status_code == 409 and "workflow" in response.json()["errors"]


def test_malformed_json_is_400_not_500(api_client):
    response = api_client.generic(
        "POST", "/api/triggers/", "{not json", content_type="application/json"
    )
    assert response.status_code == 400 and "JSON" in response.json()["detail"]


def test_body_that_is_not_an_object_is_400(api_client):
    response = api_client.generic("POST", "/api/triggers/", "[1]", content_type="application/json")
    assert response.status_code == 400


def test_trigger_publishes_its_nudge_only_on_commit(
    api_client, workflow, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        post(api_client, {"workflow": workflow.key, "idempotency_key": unique()})
    assert len(callbacks) == 1  # registered, not run: nothing reaches the broker before commit


def test_duplicate_publishes_nothing(api_client, workflow, django_capture_on_commit_callbacks):
    post(api_client, {"workflow": workflow.key, "idempotency_key": "same"})
    with django_capture_on_commit_callbacks() as callbacks:
        post(api_client, {"workflow": workflow.key, "idempotency_key": "same"})
    assert callbacks == []


def test_list_filters_by_workflow_and_status(api_client, workflow):
    post(api_client, {"workflow": workflow.key, "idempotency_key": "a"})
    other = WorkflowFactory()
    post(api_client, {"workflow": other.key, "idempotency_key": "b"})
    data = api_client.get(f"/api/triggers/?workflow={workflow.key}&status=enqueued").json()
    assert data["count"] == 1 and data["results"][0]["idempotency_key"] == "a"
    assert (
        api_client.get(f"/api/triggers/?workflow={workflow.key}&status=failed").json()["count"] == 0
    )
    assert api_client.get("/api/triggers/?status=bogus").status_code == 400


def test_unknown_trigger_is_404(api_client):
    assert api_client.get("/api/triggers/00000000-0000-0000-0000-000000000000/").status_code == 404
    assert api_client.get("/api/triggers/not-a-uuid/").status_code == 404


def test_cancel_and_cancel_again(api_client, workflow):
    trigger_id = post(api_client, {"workflow": workflow.key, "idempotency_key": "c"}).json()["id"]
    response = api_client.post(f"/api/triggers/{trigger_id}/cancel/")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert api_client.post(f"/api/triggers/{trigger_id}/cancel/").status_code == 409
    assert list(
        TriggerEvent.objects.filter(trigger_id=trigger_id).values_list("to_status", flat=True)
    ) == ["enqueued", "cancelled"]


def test_trigger_representation_is_what_drf_fields_render():
    """The hand-written output of TriggerOutputSerializer equals DRF's own field-by-field one, for
    a new trigger (as intake returns it, workflow and version from the same statement), a leased
    one, a finished one and a deleted one, read back from the database."""
    from rest_framework import serializers

    from tests.triggers.support import claimed, failed, new_trigger
    from triggers.api import TriggerOutputSerializer
    from triggers.state import trigger_delete

    fresh = new_trigger()
    leased = claimed(new_trigger(), lease_seconds=60)
    done = failed(new_trigger())
    gone = trigger_delete(trigger_id=new_trigger().pk, actor="ops", reason="why")
    ids = [fresh.pk, leased.pk, done.pk, gone.pk]
    stored = TriggerInstance.objects.select_related("workflow", "workflow_version")
    for trigger in [fresh, leased, done, *stored.filter(pk__in=ids)]:
        serializer = TriggerOutputSerializer(trigger)
        generic = serializers.ModelSerializer.to_representation(serializer, trigger)
        assert serializer.data == dict(generic)
    assert TriggerOutputSerializer(done).data["completed_at"].endswith("Z")
    assert TriggerOutputSerializer(leased).data["lease_until"] is not None
    deleted = TriggerOutputSerializer(stored.get(pk=gone.pk)).data
    assert deleted["deleted_at"].endswith("Z") and deleted["delete_reason"] == "why"


def test_an_unknown_workflow_names_the_closest_active_ones(api_client):
    welcome = WorkflowFactory(key=unique("welcome")).key
    WorkflowFactory(key=welcome + "-back", active=False)
    typo = welcome[:-1]
    response = post(api_client, {"workflow": typo, "idempotency_key": "k"})
    message = f"workflow {typo!r} does not exist; did you mean {welcome!r}?"
    assert response.status_code == 400
    assert response.json() == {"detail": message, "errors": {"workflow": [message]}}
    bulk = api_client.post(
        "/api/triggers/bulk/",
        {"triggers": [{"workflow": typo, "idempotency_key": "k"}]},
        format="json",
    )
    assert bulk.json()["results"][0]["detail"] == message


def test_an_unknown_workflow_suggests_only_the_workflows_a_limited_key_may_see():
    from rest_framework.test import APIClient

    from triggers.api_keys import api_key_create

    typo = WorkflowFactory(key=unique("welcome")).key[:-1]
    _, key = api_key_create(name=unique("limited"), workflows=[typo])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    response = post(client, {"workflow": typo, "idempotency_key": "k"})
    assert response.json()["detail"] == f"workflow {typo!r} does not exist"


def test_intake_that_succeeds_reads_no_workflow_list(api_client, workflow):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = post(api_client, {"workflow": workflow.key, "idempotency_key": "fine"})
    assert response.status_code == 201
    listing = 'SELECT "workflows_workflow"."key" AS "key" FROM "workflows_workflow"'
    assert not [q["sql"] for q in queries if q["sql"].startswith(listing)]
