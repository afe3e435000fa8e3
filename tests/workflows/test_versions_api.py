"""Where a version came from (issue 47, workflows as code): the key that made it and the message
given with the change, shown by `/api/workflows/<key>/versions/` and the admin's version history;
an unchanged definition makes no version; `?dry_run=true` answers what a write would do and saves
nothing (workflows and categories)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from recipients.models import Category
from tests.conftest import unique
from tests.factories import chain, email_node, sms_node
from triggers.api_keys import api_key_create
from triggers.models import ApiKeyScope
from workflows.models import Workflow, WorkflowVersion

pytestmark = pytest.mark.django_db


@pytest.fixture
def pusher() -> tuple[APIClient, str]:
    """An admin key named like a CI job's, and a client with it."""
    name = unique("ci-production")
    _, key = api_key_create(name=name, scope=ApiKeyScope.ADMIN)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client, name


def body(key: str, subject: str = "Hello", **fields) -> dict:
    return {"key": key, "name": key, **chain(email_node("mail", subject=subject)), **fields}


def versions(workflow_key: str) -> list[tuple[int, str, str]]:
    return list(
        WorkflowVersion.objects.filter(workflow__key=workflow_key)
        .order_by("number")
        .values_list("number", "created_by", "message")
    )


def test_each_version_records_the_key_that_made_it_and_the_message(pusher):
    api, name = pusher
    key = unique("welcome")

    created = api.post("/api/workflows/", body(key, message="sha 1111"), format="json")
    changed = api.put(f"/api/workflows/{key}/", body(key, "Hi", message="sha 2222"), format="json")

    assert (created.status_code, changed.status_code) == (201, 200), changed.content
    assert versions(key) == [(1, f"api:{name}", "sha 1111"), (2, f"api:{name}", "sha 2222")]


def test_an_unchanged_definition_makes_no_version_and_its_message_is_recorded_nowhere(pusher):
    api, name = pusher
    key = unique("welcome")
    api.post("/api/workflows/", body(key, message="first"), format="json")

    again = api.put(f"/api/workflows/{key}/", body(key, message="second"), format="json")
    renamed = api.put(
        f"/api/workflows/{key}/", body(key, name="Renamed", message="third"), format="json"
    )

    assert (again.json()["version"], renamed.json()["version"]) == (1, 1)
    assert versions(key) == [(1, f"api:{name}", "first")]
    assert Workflow.objects.get(key=key).name == "Renamed"


def test_the_versions_api_lists_them_newest_first_and_shows_one_with_its_definition(pusher):
    api, name = pusher
    key = unique("welcome")
    api.post("/api/workflows/", body(key, message="sha 1111"), format="json")
    api.put(f"/api/workflows/{key}/", body(key, "Hi"), format="json")

    listed = api.get(f"/api/workflows/{key}/versions/").json()["results"]
    first = api.get(f"/api/workflows/{key}/versions/1/")

    assert [(v["number"], v["current"], v["created_by"], v["message"]) for v in listed] == [
        (2, True, f"api:{name}", ""),
        (1, False, f"api:{name}", "sha 1111"),
    ]
    assert first.status_code == 200
    assert first.json()["definition"]["nodes"][0]["subject"] == "Hello"
    assert list(first.json()["definition"]["nodes"][0])[:3] == ["id", "type", "to"]
    missing = api.get(f"/api/workflows/{key}/versions/3/")
    assert missing.status_code == 404 and "3" in missing.json()["detail"]


def test_the_admin_version_history_shows_who_and_the_message(pusher, admin_client):
    api, name = pusher
    key = unique("welcome")
    api.post("/api/workflows/", body(key, message="deploy 5f3c2a1"), format="json")

    page = admin_client.get(f"/admin/workflows/workflow/{Workflow.objects.get(key=key).pk}/change/")

    html = page.content.decode()
    assert "<th>Message</th>" in html
    assert "<td>deploy 5f3c2a1</td>" in html and f"<td>api:{name}</td>" in html


def test_a_dry_run_create_answers_what_it_would_make_and_saves_nothing(pusher):
    api, _ = pusher
    key = unique("welcome")

    answer = api.post("/api/workflows/?dry_run=true", body(key), format="json")

    assert answer.status_code == 201, answer.content
    assert (answer.json()["key"], answer.json()["version"]) == (key, 1)
    assert not Workflow.objects.filter(key=key).exists()


def test_a_dry_run_replace_answers_the_version_it_would_make_and_saves_nothing(pusher):
    api, _ = pusher
    key = unique("welcome")
    api.post("/api/workflows/", body(key), format="json")

    changed = api.put(f"/api/workflows/{key}/?dry_run=true", body(key, "Hi"), format="json")
    same = api.put(f"/api/workflows/{key}/?dry_run=true", body(key), format="json")
    off = api.patch(f"/api/workflows/{key}/?dry_run=true", {"active": False}, format="json")

    assert (changed.json()["version"], same.json()["version"]) == (2, 1)
    assert off.json()["active"] is False
    workflow = Workflow.objects.get(key=key)
    assert (workflow.version, workflow.active) == (1, True)
    assert workflow.definition["nodes"][0]["subject"] == "Hello"


def test_a_dry_run_of_an_invalid_definition_is_the_400_the_write_would_be(pusher):
    api, _ = pusher
    key = unique("welcome")
    invalid = {"key": key, "name": key, **chain(sms_node("text", colour="red"))}

    answer = api.post("/api/workflows/?dry_run=true", invalid, format="json")

    assert answer.status_code == 400
    assert [e["field"] for e in answer.json()["errors"]] == ["nodes[0].colour"]


@pytest.mark.parametrize("value", ["yes", "1", ""])
def test_dry_run_is_true_or_false(pusher, value):
    api, _ = pusher
    key = unique("welcome")

    answer = api.post(f"/api/workflows/?dry_run={value}", body(key), format="json")

    assert answer.status_code == 400
    assert answer.json()["errors"] == {"dry_run": ["must be true or false"]}
    assert not Workflow.objects.filter(key=key).exists()


def test_a_dry_run_category_put_answers_and_saves_nothing(pusher):
    api, _ = pusher
    slug = unique("billing")

    answer = api.put(f"/api/categories/{slug}/?dry_run=true", {"name": "Billing"}, format="json")

    assert answer.status_code == 201
    assert answer.json() == {"slug": slug, "name": "Billing", "description": "", "defaults": {}}
    assert not Category.objects.filter(slug=slug).exists()
