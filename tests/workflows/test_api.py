"""Workflows over REST: create, read, version on change, validation errors, delete."""

import pytest

from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node, email_node, sms_node
from workflows.models import Workflow, WorkflowVersion
from workflows.services import workflow_update

pytestmark = pytest.mark.django_db


def body(key: str, **overrides):
    return {"key": key, "name": "Welcome", **chain(email_node(), sms_node()), **overrides}


def test_create_returns_definition_at_version_1(api_client):
    key = unique("wf")
    response = api_client.post("/api/workflows/", body(key), format="json")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert data["key"] == key and data["version"] == 1 and data["entry_node_id"] == "email"
    assert [n["id"] for n in data["nodes"]] == ["email", "sms"]
    assert api_client.get(f"/api/workflows/{key}/").json()["nodes"] == data["nodes"]


def test_invalid_definition_lists_every_problem_and_saves_nothing(api_client):
    key = unique("wf")
    bad = body(
        key,
        nodes=[email_node("a", subject="{{ x"), {"id": "b", "type": "fax"}],
        entry_node_id="a",
        edges=[{"from": "a", "to": "zz"}],
    )
    response = api_client.post("/api/workflows/", bad, format="json")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert {e["field"] for e in errors} >= {"nodes[0].subject", "nodes[1].type", "edges[0].to"}
    assert not Workflow.objects.filter(key=key).exists()


def test_duplicate_key_is_409(api_client):
    key = unique("wf")
    assert api_client.post("/api/workflows/", body(key), format="json").status_code == 201
    assert api_client.post("/api/workflows/", body(key), format="json").status_code == 409


def test_patch_definition_creates_new_version_and_keeps_old(api_client):
    key = unique("wf")
    api_client.post("/api/workflows/", body(key), format="json")
    new = chain(email_node(), delay_node(), sms_node())
    response = api_client.patch(f"/api/workflows/{key}/", new, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["version"] == 2
    versions = WorkflowVersion.objects.filter(workflow__key=key).order_by("number")
    assert [len(v.definition["nodes"]) for v in versions] == [2, 3]


def test_patch_name_only_keeps_version(api_client):
    key = unique("wf")
    api_client.post("/api/workflows/", body(key), format="json")
    response = api_client.patch(f"/api/workflows/{key}/", {"name": "Renamed"}, format="json")
    assert response.json()["name"] == "Renamed" and response.json()["version"] == 1


def test_put_replaces_and_invalid_put_changes_nothing(api_client):
    key = unique("wf")
    api_client.post("/api/workflows/", body(key), format="json")
    bad = body(key, nodes=[{"id": "a", "type": "email"}], entry_node_id="a", edges=[])
    assert api_client.put(f"/api/workflows/{key}/", bad, format="json").status_code == 400
    assert Workflow.objects.get(key=key).version == 1
    good = body(key, name="Replaced", **chain(sms_node()))
    response = api_client.put(f"/api/workflows/{key}/", good, format="json")
    assert response.status_code == 200 and response.json()["version"] == 2


def test_delete_unused_workflow(api_client):
    key = unique("wf")
    api_client.post("/api/workflows/", body(key), format="json")
    assert api_client.delete(f"/api/workflows/{key}/").status_code == 204
    assert api_client.get(f"/api/workflows/{key}/").status_code == 404


def test_delete_workflow_with_triggers_deactivates_it(api_client):
    key = unique("wf")
    api_client.post("/api/workflows/", body(key), format="json")
    api_client.post("/api/triggers/", {"workflow": key, "idempotency_key": "k"}, format="json")
    response = api_client.delete(f"/api/workflows/{key}/")
    assert response.status_code == 200 and response.json()["active"] is False


def test_list_is_paginated(api_client):
    api_client.post("/api/workflows/", body(unique("wf")), format="json")
    data = api_client.get("/api/workflows/").json()
    assert data["count"] >= 1 and "results" in data


def test_missing_fields_are_named(api_client):
    response = api_client.post("/api/workflows/", {"name": "x"}, format="json")
    assert response.status_code == 400
    assert {"key", "nodes"} <= set(response.json()["errors"])


def test_an_edit_that_loses_a_race_with_a_delete_is_a_404(api_client, monkeypatch):
    # Seen by schemathesis with two workers: PATCH read the workflow, DELETE removed it, and the
    # PATCH's locked re-read raised DoesNotExist (a 500).
    from workflows import api as workflows_api

    workflow = WorkflowFactory()

    def deleted_meanwhile(**kwargs):
        Workflow.objects.filter(pk=workflow.pk).delete()
        return workflow_update(**kwargs)

    monkeypatch.setattr(workflows_api, "workflow_update", deleted_meanwhile)
    response = api_client.patch(
        f"/api/workflows/{workflow.key}/", {"name": "Renamed"}, format="json"
    )
    assert response.status_code == 404 and "deleted meanwhile" in response.json()["detail"]


def test_entry_node_id_left_out_is_the_first_node(api_client):
    key = unique("wf")
    definition = body(key)
    del definition["entry_node_id"]

    response = api_client.post("/api/workflows/", definition, format="json")

    assert response.status_code == 201, response.content
    assert response.json()["entry_node_id"] == "email"
    replaced = {
        **definition,
        "nodes": [sms_node(), email_node()],
        "edges": [{"from": "sms", "to": "email"}],
    }
    response = api_client.put(f"/api/workflows/{key}/", replaced, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["entry_node_id"] == "sms"


def test_put_replaces_what_it_leaves_out_with_the_defaults(api_client):
    workflow = WorkflowFactory(
        definition={**chain(email_node(), sms_node()), "category": "marketing"}
    )
    replaced = {"name": "W", "nodes": [email_node()]}

    response = api_client.put(f"/api/workflows/{workflow.key}/", replaced, format="json")

    assert response.status_code == 200, response.content
    data = response.json()
    assert (data["entry_node_id"], data["edges"], data["category"]) == (
        "email",
        [],
        "transactional",
    )


def test_nodes_and_edges_come_back_with_their_fields_in_declared_order(api_client):
    """jsonb stores an object's keys shortest first ({"id", "to", "body", ...}); the API shows
    them as a node type declares them, which is how they are written."""
    key = unique("wf")
    nodes = [
        {
            "id": "welcome",
            "type": "email",
            "to": "{{ payload.email }}",
            "subject": "Hi",
            "body": "B",
        },
        {"id": "later", "type": "delay", "duration": "15m"},
        {"id": "text", "type": "sms", "to": "{{ payload.phone }}", "body": "B", "provider": "x"},
    ]
    edges = [
        {"from": "welcome", "to": "later"},
        {"from": "later", "to": "text", "when": "payload.phone"},
    ]
    created = api_client.post(
        "/api/workflows/", {"key": key, "name": "W", "nodes": nodes, "edges": edges}, format="json"
    )
    assert created.status_code == 201, created.content

    for data in (created.json(), api_client.get(f"/api/workflows/{key}/").json()):
        assert [list(node) for node in data["nodes"]] == [list(node) for node in nodes]
        assert [list(edge) for edge in data["edges"]] == [list(edge) for edge in edges]
