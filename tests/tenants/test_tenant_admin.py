"""Tenants in the admin (docs/tenants.md): the form refuses what the API refuses, naming the
path; a save goes through the services (a change recorded, every process's copy told); the
change log is read-only."""

from __future__ import annotations

import json

import pytest

from recipients.models import Category
from tenants.models import Tenant, TenantChange
from tenants.selectors import tenant_for_run

pytestmark = pytest.mark.django_db


def form(**fields):
    return {
        "id": "acme",
        "name": "Acme",
        "properties": json.dumps({"logo_url": "https://acme.example/l.png"}),
        "default_locale": "fr",
        "layout": "",
        "preferences": "{}",
        **fields,
    }


def test_adding_a_tenant_in_the_admin_records_the_change(admin_client):
    response = admin_client.post("/admin/tenants/tenant/add/", form())
    assert response.status_code == 302, response.content[:2000]
    assert Tenant.objects.get(id="acme").properties == {"logo_url": "https://acme.example/l.png"}
    assert [c.change for c in TenantChange.objects.filter(tenant="acme")] == ["put"]
    assert tenant_for_run("acme").name == "Acme"
    assert admin_client.get("/admin/tenants/tenant/").status_code == 200
    assert admin_client.get("/admin/tenants/tenant/acme/change/").status_code == 200
    assert admin_client.get("/admin/tenants/tenantchange/").status_code == 200


def test_the_form_refuses_a_bad_default_naming_its_path(admin_client):
    Category.objects.create(slug="news")
    prefs = json.dumps({"news": {"pigeon": False}})
    response = admin_client.post("/admin/tenants/tenant/add/", form(preferences=prefs))
    assert response.status_code == 200
    assert "preferences.news.pigeon" in response.content.decode()
    assert not Tenant.objects.exists()


def test_deleting_in_the_admin_goes_through_the_services(admin_client):
    admin_client.post("/admin/tenants/tenant/add/", form())
    response = admin_client.post("/admin/tenants/tenant/acme/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Tenant.objects.exists()
    changes = TenantChange.objects.filter(tenant="acme").order_by("id")  # the log is append-only
    assert [c.change for c in changes] == ["put", "delete"]
