"""Tenants over the API (docs/tenants.md): PUT creates or replaces, GET reads, DELETE removes
with what is kept per tenant; strict input, every bad input a 400 naming its path and saving
nothing; admin keys only, a key limited to workflows refused."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from content.selectors import PIECES
from content.services import layout_put
from recipients.models import Category
from tenants.models import Tenant, TenantChange
from tenants.selectors import tenant_exists, tenant_for_run
from tests.conftest import unique
from triggers.api_keys import api_key_create

pytestmark = pytest.mark.django_db

ACME = {
    "name": "Acme Corp",
    "properties": {"logo_url": "https://acme.example/logo.png"},
    "default_locale": "fr-ca",
    "layout": "acme-brand",
    "preferences": {"comments": {"email": False}},
}


def client(**key: Any) -> APIClient:
    _, secret = api_key_create(name=unique("tenants"), **key)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return api


@pytest.fixture
def admin() -> Iterator[APIClient]:
    Category.objects.get_or_create(slug="comments", defaults={"name": "Comments"})
    # The layout ACME names (a tenant's `layout` must name one).
    layout_put(key="acme-brand", name="Acme", html="<main>{{ content }}</main>", actor="tests")
    yield client(scope="admin")
    PIECES.forget()


def test_put_creates_then_replaces_and_records_each_change(admin):
    created = admin.put("/api/tenants/acme/", ACME, format="json")
    assert created.status_code == 201, created.json()
    body = created.json()
    assert body["id"] == "acme" and body["name"] == "Acme Corp"
    assert body["default_locale"] == "fr-CA"  # canonical
    assert body["layout"] == "acme-brand"
    assert body["preferences"] == {"comments": {"email": False}}

    replaced = admin.put("/api/tenants/acme/", {"name": "Acme"}, format="json")
    assert replaced.status_code == 200
    assert replaced.json()["properties"] == {} and replaced.json()["default_locale"] == ""
    assert admin.get("/api/tenants/acme/").json()["name"] == "Acme"
    assert [t["id"] for t in admin.get("/api/tenants/").json()["results"]] == ["acme"]
    changes = TenantChange.objects.filter(tenant="acme").order_by("id")
    assert [c.change for c in changes] == ["put", "put"]
    assert all(c.created_by.startswith("api:") for c in changes)


def test_a_change_is_seen_by_this_process_at_once(admin):
    admin.put("/api/tenants/acme/", ACME, format="json")
    assert tenant_for_run("acme").name == "Acme Corp"
    admin.put("/api/tenants/acme/", {**ACME, "name": "Acme 2"}, format="json")
    assert tenant_for_run("acme").name == "Acme 2"
    assert tenant_for_run("acme").category_defaults("comments") == {"email": False}
    admin.delete("/api/tenants/acme/")
    assert not tenant_for_run("acme").found
    assert not tenant_exists("acme")


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"name": ""}, "name"),
        ({"name": "A", "properties": []}, "properties"),
        ({"name": "A", "default_locale": "xx-nope-1"}, "default_locale"),
        ({"name": "A", "layout": "Not A Key"}, "layout"),
        ({"name": "A", "layout": "no-such-layout"}, "layout"),
        ({"name": "A", "preferences": []}, "preferences"),
        ({"name": "A", "preferences": {"nope": {"email": False}}}, "preferences.nope"),
        (
            {"name": "A", "preferences": {"comments": {"pigeon": False}}},
            "preferences.comments.pigeon",
        ),
        ({"name": "A", "preferences": {"comments": {"email": "no"}}}, "preferences.comments.email"),
        ({"name": "A", "preferences": {"comments": True}}, "preferences.comments"),
        ({"name": "A", "colour": "red"}, "colour"),
        ({"properties": {}}, "name"),
    ],
)
def test_bad_input_is_a_400_naming_its_path_and_saves_nothing(admin, body, path):
    response = admin.put("/api/tenants/acme/", body, format="json")
    assert response.status_code == 400, response.json()
    assert path in response.json()["errors"], response.json()
    assert not Tenant.objects.filter(id="acme").exists()
    assert not TenantChange.objects.filter(tenant="acme").exists()


def test_an_id_that_cannot_be_one_is_a_400_naming_id(admin):
    response = admin.put("/api/tenants/-acme/", {"name": "A"}, format="json")
    assert response.status_code == 400
    assert "id" in response.json()["errors"]


def test_dry_run_answers_and_saves_nothing(admin):
    response = admin.put("/api/tenants/acme/?dry_run=true", ACME, format="json")
    assert response.status_code == 201
    assert not Tenant.objects.filter(id="acme").exists()


def test_delete_is_204_then_404(admin):
    admin.put("/api/tenants/acme/", ACME, format="json")
    assert admin.delete("/api/tenants/acme/").status_code == 204
    assert admin.delete("/api/tenants/acme/").status_code == 404
    assert admin.get("/api/tenants/acme/").status_code == 404
    assert [c.change for c in TenantChange.objects.filter(tenant="acme").order_by("id")] == [
        "put",
        "delete",
    ]


def test_tenants_need_the_admin_scope_and_a_limited_key_is_refused(admin):
    admin.put("/api/tenants/acme/", ACME, format="json")
    trigger_key = client(scope="trigger")
    assert trigger_key.get("/api/tenants/").status_code == 403
    assert trigger_key.put("/api/tenants/x/", {"name": "X"}, format="json").status_code == 403
    limited = client(scope="trigger", workflows=["welcome"])
    assert limited.get("/api/tenants/acme/").status_code == 403
