"""The translation catalogs' API (docs/translations.md, docs/design/api.md "HTTP API"): PUT replaces,
PATCH merges, DELETE removes, each change a version with who and when; strict input, every bad
input a 400 naming its path and saving nothing; admin keys only."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from content.models import TranslationCatalog, TranslationCatalogVersion
from tests.conftest import unique
from triggers.api_keys import api_key_create

pytestmark = pytest.mark.django_db

FRENCH = {
    "welcome": {"subject": "Bienvenue, {{ name }}"},
    "cart": {"items": {"one": "{{ count }} article", "other": "{{ count }} articles"}},
}


def client(**key: Any) -> APIClient:
    _, secret = api_key_create(name=unique("translations"), **key)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return api


@pytest.fixture
def admin() -> APIClient:
    return client(scope="admin")


def versions(locale: str) -> list[tuple[int, Any, str]]:
    rows = TranslationCatalogVersion.objects.filter(locale=locale).order_by("number")
    return [(v.number, v.messages, v.created_by) for v in rows]


def test_put_creates_then_replaces_each_time_a_new_version(admin):
    created = admin.put("/api/translations/fr/", {"messages": FRENCH}, format="json")
    assert created.status_code == 201
    assert created.json()["locale"] == "fr" and created.json()["version"] == 1
    replaced = admin.put("/api/translations/fr/", {"messages": {"a": "b"}}, format="json")
    assert replaced.status_code == 200 and replaced.json()["messages"] == {"a": "b"}
    assert [(n, m) for n, m, _ in versions("fr")] == [(1, FRENCH), (2, {"a": "b"})]
    assert all(who.startswith("api:") for _, _, who in versions("fr"))
    assert admin.get("/api/translations/fr/").json()["version"] == 2


def test_a_locale_is_kept_in_one_casing(admin):
    admin.put("/api/translations/pt-br/", {"messages": {"a": "b"}}, format="json")
    assert admin.get("/api/translations/PT-BR/").json()["locale"] == "pt-BR"
    assert [c["locale"] for c in admin.get("/api/translations/").json()["results"]] == ["pt-BR"]


def test_patch_merges_keys_and_null_removes_one(admin):
    admin.put("/api/translations/fr/", {"messages": FRENCH}, format="json")
    patched = admin.patch(
        "/api/translations/fr/",
        {"messages": {"welcome": {"body": "Corps"}, "cart": None}},
        format="json",
    )
    assert patched.status_code == 200
    assert patched.json()["messages"] == {
        "welcome": {"subject": "Bienvenue, {{ name }}", "body": "Corps"}
    }
    assert patched.json()["version"] == 2
    assert (
        admin.patch("/api/translations/de/", {"messages": {"a": "b"}}, format="json").status_code
        == 201
    )


def test_delete_removes_the_catalog_and_records_a_version_without_messages(admin):
    admin.put("/api/translations/fr/", {"messages": FRENCH}, format="json")
    assert admin.delete("/api/translations/fr/").status_code == 204
    assert admin.get("/api/translations/fr/").status_code == 404
    assert admin.delete("/api/translations/fr/").status_code == 404
    assert [(n, m) for n, m, _ in versions("fr")] == [(1, FRENCH), (2, None)]
    # Numbers go on after a delete.
    assert (
        admin.put("/api/translations/fr/", {"messages": FRENCH}, format="json").json()["version"]
        == 3
    )


@pytest.mark.parametrize(
    ("messages", "path", "message"),
    [
        ("text", "messages", "must be an object of keys"),
        ({"a": 3}, "messages.a", "must be a string (a Liquid template), a plural object or"),
        ({"a": ["x"]}, "messages.a", "must be a string (a Liquid template), a plural object or"),
        ({"a": {"b": True}}, "messages.a.b", "must be a string (a Liquid template)"),
        ({"cart": {"items": {"one": "1"}}}, "messages.cart.items", "must have 'other'"),
        ({"n": {"one": 1, "other": "x"}}, "messages.n.one", "a plural form must be a string"),
        ({"a": "{{ name "}, "messages.a", "template: "),
        ({"a": {"b": "{% if %}"}}, "messages.a.b", "template: "),
        ({"a": "{{ x | nosuch }}"}, "messages.a", "unknown filter 'nosuch'"),
        ({"a.b": "x"}, "messages.a.b", "has no '.'"),
        ({"": "x"}, "messages.", "is not empty"),
    ],
)
def test_a_bad_catalog_is_a_400_naming_its_path_and_saves_nothing(admin, messages, path, message):
    for method in ("put", "patch"):
        response = getattr(admin, method)(
            "/api/translations/fr/", {"messages": messages}, format="json"
        )
        assert response.status_code == 400, (method, response.json())
        errors = response.json()["errors"]
        assert list(errors) == [path], errors
        assert message in errors[path][0]
    assert not TranslationCatalog.objects.filter(locale="fr").exists()
    assert not TranslationCatalogVersion.objects.filter(locale="fr").exists()


@pytest.mark.parametrize("locale", ["xx", "fr_CA", "not-a-locale-at-all", "12"])
@pytest.mark.parametrize("method", ["get", "put", "patch", "delete"])
def test_a_locale_that_is_not_one_is_a_400_naming_it_not_a_404(admin, locale, method):
    body = {"messages": {"a": "b"}} if method in ("put", "patch") else None
    response = getattr(admin, method)(f"/api/translations/{locale}/", body, format="json")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["locale"]


def test_an_unknown_field_is_a_400_naming_it(admin):
    response = admin.put("/api/translations/fr/", {"messages": {}, "mesages": {}}, format="json")
    assert response.status_code == 400 and "mesages" in response.json()["errors"]
    assert admin.put("/api/translations/fr/", {}, format="json").json()["errors"] == {
        "messages": ["This field is required."]
    }


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/translations/"),
        ("get", "/api/translations/fr/"),
        ("put", "/api/translations/fr/"),
        ("patch", "/api/translations/fr/"),
        ("delete", "/api/translations/fr/"),
    ],
)
@pytest.mark.parametrize("limited", [False, True], ids=["trigger key", "limited key"])
def test_a_trigger_key_limited_or_not_is_refused_and_changes_nothing(admin, method, path, limited):
    admin.put("/api/translations/fr/", {"messages": FRENCH}, format="json")
    key = client(workflows=["mine"]) if limited else client()

    response = getattr(key, method)(path, {"messages": {"a": "b"}}, format="json")

    assert response.status_code == 403
    assert response.json()["detail"] == "this API key lacks the 'admin' scope"
    assert TranslationCatalog.objects.get(locale="fr").messages == FRENCH


@pytest.mark.parametrize("method", ["put", "patch"])
def test_a_dry_run_answers_what_the_write_would_do_and_saves_nothing(admin, method):
    admin.put("/api/translations/fr/", {"messages": {"a": "b"}}, format="json")
    write = getattr(admin, method)

    answer = write("/api/translations/fr/?dry_run=true", {"messages": FRENCH}, format="json")
    assert answer.status_code == 200 and answer.json()["version"] == 2
    assert ("welcome" in answer.json()["messages"]) and (
        ("a" in answer.json()["messages"]) == (method == "patch")
    )
    created = write("/api/translations/de/?dry_run=true", {"messages": FRENCH}, format="json")
    assert created.status_code == 201
    refused = write(
        "/api/translations/fr/?dry_run=true", {"messages": {"x": {"one": "y"}}}, format="json"
    )
    assert refused.status_code == 400 and "messages.x" in refused.json()["errors"]
    assert versions("fr") == [(1, {"a": "b"}, versions("fr")[0][2])]
    assert not TranslationCatalog.objects.filter(locale="de").exists()
    assert (
        write("/api/translations/fr/?dry_run=maybe", {"messages": {}}, format="json").status_code
        == 400
    )
