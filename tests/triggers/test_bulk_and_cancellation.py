"""The client API of docs/design/api.md beyond one trigger at a time: bulk intake (each item decided
as POST /api/triggers/ would decide it alone, in a few statements for them all), strict
idempotency (a key reused with other parameters is a 422 that changes nothing) and cancellation
keys (the API and manage.py cancel_trigger)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from events.models import OutboxEvent
from events.services.endpoints import endpoint_create
from tests.conftest import unique
from tests.factories import WorkflowFactory
from tests.triggers.support import new_trigger
from triggers.models import TriggerEvent, TriggerInstance, TriggerStatus
from triggers.representation import trigger_json
from triggers.services import TriggerRejected, trigger_create

pytestmark = pytest.mark.django_db

BULK = "/api/triggers/bulk/"
CANCEL = "/api/triggers/cancel/"


def item(workflow, key, payload=None, **extra):
    return {"workflow": workflow.key, "idempotency_key": key, "payload": payload or {}, **extra}


def bulk(client, items):
    response = client.post(BULK, {"triggers": items}, format="json")
    assert response.status_code == 200, response.content
    results = response.json()["results"]
    assert [result["index"] for result in results] == list(range(len(items)))
    return results


# --- bulk ------------------------------------------------------------------------------------


def test_each_item_is_decided_as_a_single_request_would_be_in_request_order(api_client):
    workflow, inactive = WorkflowFactory(), WorkflowFactory(active=False)
    before = trigger_create(workflow_key=workflow.key, idempotency_key="old", payload={"a": 1})[0]
    items = [
        item(workflow, "new-1", {"n": 1}),
        item(workflow, "old", {"a": 1}),  # a replay of a stored trigger
        item(workflow, "old", {"a": 2}),  # the stored key with another payload
        item(workflow, "new-1", {"n": 1}),  # a replay of item 0, in the same request
        item(workflow, "new-2", [1]),  # payload not an object
        {"workflow": workflow.key, "payload": {}},  # no key
        "not an object",
        item(inactive, "k"),
        {"workflow": "no-such-workflow", "idempotency_key": "k"},
        item(workflow, "new-3", priority=7, cancellation_key="order-1"),
        item(workflow, "new-1", {"n": 2}),  # item 0's key with another payload
    ]

    results = bulk(api_client, items)

    assert [result["status"] for result in results] == [
        201, 200, 422, 200, 400, 400, 400, 409, 400, 201, 422
    ]  # fmt: skip
    first = results[0]["trigger"]
    assert first["status"] == "enqueued" and first["payload"] == {"n": 1}
    assert results[1]["trigger"]["id"] == str(before.pk)
    assert results[3]["trigger"]["id"] == first["id"]
    assert results[2]["existing_trigger_id"] == str(before.pk)
    assert str(before.pk) in results[2]["detail"]
    assert results[10]["existing_trigger_id"] == first["id"]
    assert set(results[4]["errors"]) == {"payload"}
    assert set(results[5]["errors"]) == {"idempotency_key"}
    assert set(results[6]["errors"]) == {"item"}
    assert "not active" in results[7]["detail"]
    assert "does not exist" in results[8]["detail"]
    ninth = results[9]["trigger"]
    assert (ninth["priority"], ninth["cancellation_key"]) == (7, "order-1")
    stored = TriggerInstance.objects.filter(workflow=workflow)
    assert sorted(stored.values_list("idempotency_key", flat=True)) == ["new-1", "new-3", "old"]
    assert TriggerInstance.objects.get(pk=before.pk).payload == {"a": 1}  # unchanged
    created = TriggerEvent.objects.filter(trigger__workflow=workflow, to_status="enqueued")
    assert created.count() == 3


def test_bulk_answers_match_the_single_endpoint(api_client):
    """The same requests, one by one and in bulk (other keys): the same statuses and errors."""
    workflow = WorkflowFactory()
    cases = [
        ({"n": 1}, {}),
        ([1], {}),
        ({}, {"priority": 12}),
        ({}, {"cancellation_key": 5}),
        ({}, {"cancellation_key": "x" * 256}),
    ]
    singles = []
    for i, (payload, extra) in enumerate(cases):
        response = api_client.post(
            "/api/triggers/", item(workflow, f"single-{i}", payload, **extra), format="json"
        )
        singles.append((response.status_code, sorted(response.json().get("errors", {}))))
    results = bulk(
        api_client,
        [item(workflow, f"bulk-{i}", payload, **extra) for i, (payload, extra) in enumerate(cases)],
    )
    assert [(r["status"], sorted(r.get("errors", {}))) for r in results] == singles


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"triggers": []}, "triggers"),
        ({"triggers": {"workflow": "w"}}, "triggers"),
        ({}, "triggers"),
        ([], "body"),
    ],
)
def test_a_malformed_bulk_body_is_a_400(api_client, body, field):
    response = api_client.post(BULK, body, format="json")
    assert response.status_code == 400
    assert field in response.json()["errors"]


def test_a_bulk_over_the_limit_is_a_400_and_stores_nothing(api_client, settings):
    settings.NOTIFLOW_BULK_MAX = 3
    workflow = WorkflowFactory()
    response = api_client.post(
        BULK, {"triggers": [item(workflow, f"k{i}") for i in range(4)]}, format="json"
    )
    assert response.status_code == 400
    assert "at most 3" in response.json()["errors"]["triggers"][0]
    assert not TriggerInstance.objects.filter(workflow=workflow).exists()
    assert len(bulk(api_client, [item(workflow, f"k{i}") for i in range(3)])) == 3


def test_bulk_takes_the_same_few_statements_for_ten_items_or_two_hundred(api_client):
    workflow, other = WorkflowFactory(), WorkflowFactory()

    def statements(n: int, prefix: str) -> int:
        items = [item(workflow if i % 2 else other, f"{prefix}-{i}") for i in range(n)]
        items += [items[0]]  # one replay, so the read of existing triggers runs too
        with CaptureQueriesContext(connection) as queries:
            results = bulk(api_client, items)
        assert {result["status"] for result in results} == {201, 200}
        return len(queries)

    statements(5, "warm")  # the API key's lookup is cached from here on
    small, large = statements(10, "small"), statements(200, "large")
    assert small == large == 2  # the inbox statement and the read of the keys already held
    assert TriggerInstance.objects.filter(workflow__in=[workflow, other]).count() == 215


# --- strict idempotency ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "other",
    [
        {"payload": {"a": 2}},
        {"payload": {"a": 1, "b": None}},
        {"priority": 9},
        {"cancellation_key": "c-2"},
        {"cancellation_key": ""},
    ],
)
def test_a_key_reused_with_other_parameters_is_a_422_that_changes_nothing(api_client, other):
    workflow = WorkflowFactory()
    first = {**item(workflow, "k", {"a": 1}), "priority": 3, "cancellation_key": "c-1"}
    created = api_client.post("/api/triggers/", first, format="json")
    assert created.status_code == 201
    trigger_id = created.json()["id"]

    response = api_client.post("/api/triggers/", {**first, **other}, format="json")

    assert response.status_code == 422
    body = response.json()
    assert body["existing_trigger_id"] == trigger_id
    assert "used with other parameters" in body["detail"] and trigger_id in body["detail"]
    assert set(body["errors"]) == {"idempotency_key"}
    stored = TriggerInstance.objects.get(workflow=workflow)
    assert (stored.payload, stored.priority, stored.cancellation_key) == ({"a": 1}, 3, "c-1")
    # The same request again is still the replay, keys of the payload in any order.
    again = api_client.post(
        "/api/triggers/", {**first, "payload": dict(reversed(list({"a": 1}.items())))}, "json"
    )
    assert again.status_code == 200 and again.json()["id"] == trigger_id


def test_a_replay_leaving_out_the_priority_differs_from_one_naming_it():
    """The request is compared, not the trigger: leaving priority out is a request of its own,
    even when the workflow's priority is the same number."""
    workflow = WorkflowFactory(priority=5)
    trigger_create(workflow_key=workflow.key, idempotency_key="k", payload={})
    assert trigger_create(workflow_key=workflow.key, idempotency_key="k", payload={})[1] is False
    with pytest.raises(TriggerRejected, match="used with other parameters") as refused:
        trigger_create(workflow_key=workflow.key, idempotency_key="k", payload={}, priority=5)
    assert refused.value.status_code == 422


def test_a_trigger_stored_before_request_hashes_matches_any_repeat(api_client):
    workflow = WorkflowFactory()
    old = new_trigger(workflow)
    TriggerInstance.objects.filter(pk=old.pk).update(request_hash="")  # as the migration left it
    response = api_client.post(
        "/api/triggers/", item(workflow, old.idempotency_key, {"b": 2}), format="json"
    )
    assert response.status_code == 200 and response.json()["id"] == str(old.pk)


# --- cancellation keys -------------------------------------------------------------------------


def keyed(workflow=None, cancellation_key="", status=TriggerStatus.ENQUEUED) -> TriggerInstance:
    trigger, _ = trigger_create(
        workflow_key=(workflow or WorkflowFactory()).key,
        idempotency_key=unique("key"),
        payload={},
        cancellation_key=cancellation_key,
    )
    TriggerInstance.objects.filter(pk=trigger.pk).update(status=status)
    return trigger


def test_cancel_by_key_cancels_the_unfinished_triggers_carrying_it(api_client):
    billing, other = WorkflowFactory(), WorkflowFactory()
    a = keyed(billing, "order-7")
    b = keyed(billing, "order-7", TriggerStatus.PROCESSING)
    c = keyed(other, "order-7")
    done = keyed(billing, "order-7", TriggerStatus.COMPLETED)
    gone = keyed(billing, "order-7")
    api_client.delete(f"/api/triggers/{gone.pk}/", format="json")
    unrelated = keyed(billing, "order-8")

    response = api_client.post(
        CANCEL, {"cancellation_key": "order-7", "workflow": billing.key}, format="json"
    )

    assert response.status_code == 200
    assert response.json() == {"cancelled": 2, "ids": sorted([str(a.pk), str(b.pk)])}
    status = dict(TriggerInstance.objects.values_list("pk", "status"))
    assert status[a.pk] == status[b.pk] == TriggerStatus.CANCELLED
    assert status[c.pk] == status[gone.pk] == status[unrelated.pk] == TriggerStatus.ENQUEUED
    assert status[done.pk] == TriggerStatus.COMPLETED
    event = TriggerEvent.objects.get(trigger=a, to_status="cancelled")
    assert event.reason == "cancelled via API by cancellation key"

    everywhere = api_client.post(CANCEL, {"cancellation_key": "order-7"}, format="json")
    assert everywhere.json() == {"cancelled": 1, "ids": [str(c.pk)]}
    none = api_client.post(CANCEL, {"cancellation_key": "order-7"}, format="json")
    assert none.status_code == 200 and none.json() == {"cancelled": 0, "ids": []}


def test_cancel_by_key_announces_each_cancellation(api_client):
    workflow = WorkflowFactory()
    endpoint = endpoint_create(url="http://127.0.0.1:9/hook", events=["trigger.cancelled"])
    triggers = [keyed(workflow, "k") for _ in range(3)]
    api_client.post(CANCEL, {"cancellation_key": "k"}, format="json")
    announced = OutboxEvent.objects.filter(type="trigger.cancelled", workflow_key=workflow.key)
    assert sorted(str(e.trigger_id) for e in announced) == sorted(str(t.pk) for t in triggers)
    assert all(e.data["trigger"]["cancellation_key"] == "k" for e in announced)
    assert endpoint.deliveries.count() == 3
    # Each shows its run as the cancel left it (notiflow_runs_cancel_v1 overlays what it set).
    for event in announced:
        run = TriggerInstance.objects.get(pk=event.trigger_id)
        shown = event.data["trigger"]
        assert (shown["status"], shown["lease_until"]) == ("cancelled", None)
        assert shown["completed_at"] == trigger_json(run)["completed_at"] is not None
        assert shown["updated_at"] == trigger_json(run)["updated_at"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"cancellation_key": ""},
        {"cancellation_key": 7},
        {"cancellation_key": "k", "workflow": ""},
    ],
)
def test_cancel_by_key_refuses_a_missing_or_empty_key(api_client, body):
    response = api_client.post(CANCEL, body, format="json")
    assert response.status_code == 400 and response.json()["errors"]


def test_the_command_cancels_by_key(capsys):
    workflow = WorkflowFactory()
    mine = keyed(workflow, "signup-9")
    theirs = keyed(None, "signup-9")
    out, err = StringIO(), StringIO()
    call_command(
        "cancel_trigger",
        "--cancellation-key",
        "signup-9",
        "--workflow",
        workflow.key,
        stdout=out,
        stderr=err,
    )
    assert out.getvalue() == f"{mine.pk}: cancelled\n"
    assert "1 trigger(s) with cancellation key 'signup-9' cancelled" in err.getvalue()
    assert TriggerInstance.objects.get(pk=theirs.pk).status == TriggerStatus.ENQUEUED
    with pytest.raises(CommandError, match="not both"):
        call_command("cancel_trigger", str(theirs.pk), "--cancellation-key", "signup-9")
    with pytest.raises(CommandError, match="goes with --cancellation-key"):
        call_command("cancel_trigger", str(theirs.pk), "--workflow", workflow.key)
    with pytest.raises(CommandError, match="must not be empty"):
        call_command("cancel_trigger", "--cancellation-key", "")


# --- strict input (issue 30, §2) ---------------------------------------------------------------


def test_every_malformed_bulk_item_is_its_own_400_null_too(api_client):
    workflow = WorkflowFactory()
    results = bulk(
        api_client,
        [item(workflow, "ok"), None, 1, "x", [], item(workflow, "typo", priorty=9)],
    )
    assert [r["status"] for r in results] == [201, 400, 400, 400, 400, 400]
    assert all(
        r["errors"] == {"item": ["each trigger must be a JSON object"]} for r in results[1:5]
    )
    assert results[5]["errors"] == {"priorty": ["unknown field; did you mean 'priority'?"]}
    assert TriggerInstance.objects.filter(workflow__key=workflow.key).count() == 1


def test_an_unknown_field_of_the_bulk_envelope_refuses_the_request(api_client):
    workflow = WorkflowFactory()
    response = api_client.post(BULK, {"trigger": [item(workflow, "k")]}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"]["trigger"] == ["unknown field; did you mean 'triggers'?"]
    assert not TriggerInstance.objects.filter(workflow__key=workflow.key).exists()


@pytest.mark.parametrize(
    ("other", "differing"),
    [
        ({"payload": {"a": 2}}, "payload"),
        ({"priority": 9}, "priority"),
        ({"cancellation_key": "c-2"}, "cancellation_key"),
        ({"payload": {}, "cancellation_key": ""}, "payload, cancellation_key"),
        ({"priority": None}, "priority"),  # left out, where the first request named one
    ],
)
def test_a_422_names_the_parameters_that_differ(api_client, other, differing):
    workflow = WorkflowFactory()
    first = {**item(workflow, "k", {"a": 1}), "priority": 3, "cancellation_key": "c-1"}
    assert api_client.post("/api/triggers/", first, format="json").status_code == 201
    again = {k: v for k, v in {**first, **other}.items() if v is not None}

    response = api_client.post("/api/triggers/", again, format="json")

    assert response.status_code == 422
    assert (
        f"used with other parameters (differing: {differing}) by trigger"
        in (response.json()["detail"])
    )


def test_cancel_by_key_naming_an_unknown_workflow_is_a_400(api_client):
    trigger = keyed(None, "order-8")
    response = api_client.post(
        CANCEL, {"cancellation_key": "order-8", "workflow": "no-such-workflow"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["errors"] == {"workflow": ["workflow 'no-such-workflow' does not exist"]}
    assert TriggerInstance.objects.get(pk=trigger.pk).status == TriggerStatus.ENQUEUED
