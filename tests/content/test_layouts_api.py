"""Layouts and partials over the API (docs/layouts.md): PUT creates or replaces, DELETE removes,
each change a version with who and when; strict input, every bad input a 400 naming its field
and saving nothing; a workflow naming an unknown layout or partial is a 400 naming node and
field; admin keys only."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from content.models import ContentVersion, Layout, Partial
from content.selectors import PIECES
from tests.conftest import unique
from triggers.api_keys import api_key_create

pytestmark = pytest.mark.django_db

BRAND = {
    "name": "Brand",
    "html": "<html><body>{{ content }}{% render 'footer' %}</body></html>",
    "text": "{{ content }}\n-- \nExample",
}


@pytest.fixture(autouse=True)
def fresh_cache():
    PIECES.forget()
    yield
    PIECES.forget()


def client(**key: Any) -> APIClient:
    _, secret = api_key_create(name=unique("layouts"), **key)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return api


@pytest.fixture
def admin() -> APIClient:
    return client(scope="admin")


def versions(kind: str, key: str) -> list[tuple[int, Any]]:
    rows = ContentVersion.objects.filter(kind=kind, key=key).order_by("number")
    return [(v.number, v.content) for v in rows]


def test_a_layout_put_creates_then_replaces_each_time_a_new_version(admin):
    created = admin.put("/api/layouts/brand/", BRAND, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["version"] == 1 and created.json()["updated_by"].startswith("api:")
    changed = {**BRAND, "text": ""}
    replaced = admin.put("/api/layouts/brand/", changed, format="json")
    assert replaced.status_code == 200 and replaced.json()["version"] == 2
    assert versions("layout", "brand") == [(1, BRAND), (2, changed)]
    assert admin.get("/api/layouts/brand/").json()["text"] == ""
    assert [row["key"] for row in admin.get("/api/layouts/").json()["results"]] == ["brand"]


def test_a_partial_put_get_delete_keeps_its_history(admin):
    assert (
        admin.put("/api/partials/footer/", {"content": "<p>bye</p>"}, format="json").status_code
        == 201
    )
    assert admin.get("/api/partials/footer/").json()["content"] == "<p>bye</p>"
    assert admin.delete("/api/partials/footer/").status_code == 204
    assert admin.get("/api/partials/footer/").status_code == 404
    assert admin.delete("/api/partials/footer/").status_code == 404
    assert versions("partial", "footer") == [(1, {"content": "<p>bye</p>"}), (2, None)]
    again = admin.put("/api/partials/footer/", {"content": "x"}, format="json")
    assert again.status_code == 201 and again.json()["version"] == 3


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({**BRAND, "html": "<p>no slot</p>"}, "html", "exactly once"),
        ({**BRAND, "html": "{{ content }}{{content}}"}, "html", "not 2 times"),
        ({**BRAND, "html": "{{ content }}{% if %}"}, "html", "template"),
        ({**BRAND, "text": "no slot"}, "text", "exactly once"),
        ({**BRAND, "name": ""}, "name", ""),
        ({**BRAND, "html": 12}, "html", ""),
        ({**BRAND, "colour": "red"}, "colour", ""),
        ({"name": "x", "text": "{{ content }}"}, "html", "required"),
    ],
)
def test_each_bad_layout_is_a_400_naming_its_field_and_saves_nothing(admin, body, field, words):
    response = admin.put("/api/layouts/brand/", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["errors"], response.json()
    assert words in " ".join(response.json()["errors"][field])
    assert not Layout.objects.exists() and not ContentVersion.objects.filter(key="brand").exists()


def test_a_key_that_is_not_one_is_a_400_naming_key(admin):
    response = admin.put("/api/layouts/Not.A.Key/", BRAND, format="json")
    assert response.status_code == 400 and "key" in response.json()["errors"]
    response = admin.put("/api/partials/Foot er/", {"content": "x"}, format="json")
    assert response.status_code == 400 and "key" in response.json()["errors"]


@pytest.mark.parametrize(
    ("body", "field"),
    [({"content": "{% for %}"}, "content"), ({"content": None}, "content"), ({"x": "y"}, "x")],
)
def test_each_bad_partial_is_a_400_naming_its_field(admin, body, field):
    response = admin.put("/api/partials/footer/", body, format="json")
    assert response.status_code == 400 and field in response.json()["errors"], response.json()
    assert not Partial.objects.exists()


def test_dry_run_answers_and_saves_nothing(admin):
    response = admin.put("/api/layouts/brand/?dry_run=true", BRAND, format="json")
    assert response.status_code == 201 and response.json()["version"] == 1
    assert not Layout.objects.exists() and not ContentVersion.objects.filter(key="brand").exists()


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "/api/layouts/", None),
        ("get", "/api/layouts/brand/", None),
        ("put", "/api/layouts/brand/", {**BRAND, "name": "Theirs"}),
        ("delete", "/api/layouts/brand/", None),
        ("get", "/api/partials/", None),
        ("get", "/api/partials/footer/", None),
        ("put", "/api/partials/footer/", {"content": "theirs"}),
        ("delete", "/api/partials/footer/", None),
    ],
)
@pytest.mark.parametrize("limited", [False, True], ids=["trigger key", "limited key"])
def test_a_trigger_key_limited_or_not_is_refused_and_changes_nothing(
    admin, method, path, body, limited
):
    admin.put("/api/layouts/brand/", BRAND, format="json")
    admin.put("/api/partials/footer/", {"content": "ours"}, format="json")
    key = client(workflows=["mine"]) if limited else client()

    response = getattr(key, method)(path, body, format="json")

    assert response.status_code == 403
    assert response.json()["detail"] == "this API key lacks the 'admin' scope"
    assert Layout.objects.get(key="brand").name == "Brand"
    assert Partial.objects.get(key="footer").content == "ours"


def email_workflow(**extra: Any) -> dict[str, Any]:
    node = {"id": "mail", "type": "email", "to": "a@example.com", "subject": "Hi", "body": "B"}
    return {"key": unique("laid"), "name": "Laid out", "nodes": [{**node, **extra}]}


def test_a_workflow_naming_an_unknown_layout_or_partial_is_a_400_naming_node_and_field(admin):
    response = admin.post("/api/workflows/", email_workflow(layout="nope"), format="json")
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error == {
        "field": "nodes[0].layout",
        "message": "layout 'nope' does not exist",
        "node": "mail",
    }
    body = email_workflow(html='<p>x</p>{% render "missing" %}')
    (error,) = admin.post("/api/workflows/", body, format="json").json()["errors"]
    assert (error["field"], error["node"]) == ("nodes[0].html", "mail")
    assert error["message"] == "partial 'missing' does not exist"
    body = {**email_workflow(), "default_layout": "nope"}
    (error,) = admin.post("/api/workflows/", body, format="json").json()["errors"]
    assert error == {"field": "default_layout", "message": "layout 'nope' does not exist"}


def test_a_workflow_naming_layouts_and_partials_that_exist_is_saved(admin):
    admin.put("/api/partials/footer/", {"content": "bye"}, format="json")
    admin.put("/api/layouts/brand/", BRAND, format="json")
    body = {
        **email_workflow(layout="brand", body='{% render "footer" %}'),
        "default_layout": "brand",
    }
    response = admin.post("/api/workflows/", body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["default_layout"] == "brand"
    assert response.json()["nodes"][0]["layout"] == "brand"
