"""Translation catalogs in the admin (docs/translations.md, "7. In the admin and as code"): listed, edited as
JSON through content/services.py (each save a version), refused as the API refuses them (each
problem a form error naming its path), and their history compared version by version."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from content.models import TranslationCatalog, TranslationCatalogVersion
from content.services import catalog_delete, catalog_put

pytestmark = pytest.mark.django_db

ADD = "/admin/content/translationcatalog/add/"
FR = {"welcome": {"subject": "Bienvenue, {{ name }}"}}


def change_url(locale: str) -> str:
    return f"/admin/content/translationcatalog/{TranslationCatalog.objects.get(locale=locale).pk}/change/"


def test_the_list_shows_each_catalog_with_its_key_count_and_version(admin_client, catalogs):
    html = admin_client.get("/admin/content/translationcatalog/").content.decode()

    rows = re.findall(r"<tr>.*?</tr>", html, re.S)
    cells = [re.sub(r"<[^>]+>", "|", row) for row in rows if "field-locale" in row]
    assert len(cells) == 2
    assert "en" in cells[0] and "|4|" in cells[0]  # welcome.subject, .greeting, cart.items, only_en
    assert "fr" in cells[1] and "|3|" in cells[1]


def test_adding_a_catalog_saves_it_through_the_services_as_version_1(admin_client):
    response = admin_client.post(ADD, {"locale": "pt-br", "messages": json.dumps(FR)})

    assert response.status_code == 302, response.content.decode()[:2000]
    catalog = TranslationCatalog.objects.get()
    assert (catalog.locale, catalog.messages, catalog.version) == ("pt-BR", FR, 1)
    version = TranslationCatalogVersion.objects.get(locale="pt-BR")
    assert (version.locale, version.number, version.messages) == ("pt-BR", 1, FR)
    assert version.created_by == catalog.updated_by != ""


def test_changing_a_catalog_writes_the_next_version_and_keeps_the_locale(admin_client, catalogs):
    changed = {**catalogs["fr"], "bye": "Au revoir"}
    html = admin_client.get(change_url("fr")).content.decode()
    assert '"subject": "Bienvenue, {{ name }}"' in unescape(html)  # shown indented

    response = admin_client.post(
        change_url("fr"), {"locale": "de", "messages": json.dumps(changed)}
    )

    assert response.status_code == 302
    assert TranslationCatalog.objects.get(locale="fr").messages == changed
    assert not TranslationCatalog.objects.filter(locale="de").exists()
    assert list(
        TranslationCatalogVersion.objects.filter(locale="fr").values_list("number", flat=True)
    ) == [2, 1]


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        (
            {"cart": {"items": {"one": "{{ count }} item"}}},
            "messages.cart.items: a plural object",
        ),
        ({"welcome": {"subject": "{% if %}"}}, "messages.welcome.subject: template:"),
        ({"welcome": {"subject": 3}}, "messages.welcome.subject: must be a string"),
        ({"a.b": "x"}, "messages.a.b:"),
        ([], "messages: must be an object of keys"),
    ],
)
def test_a_bad_catalog_is_a_form_error_naming_its_path_and_nothing_is_saved(
    admin_client, messages, error
):
    response = admin_client.post(ADD, {"locale": "fr", "messages": json.dumps(messages)})

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["messages"]
    assert any(e.startswith(error) for e in errors), errors
    assert not TranslationCatalog.objects.exists()
    assert not TranslationCatalogVersion.objects.filter(locale="fr").exists()


def test_a_bad_locale_or_bad_json_is_a_form_error(admin_client):
    response = admin_client.post(ADD, {"locale": "not a locale", "messages": "{}"})
    assert "locale" in response.context["adminform"].form.errors

    response = admin_client.post(ADD, {"locale": "fr", "messages": "{"})
    assert "messages" in response.context["adminform"].form.errors
    assert not TranslationCatalog.objects.exists()


def test_deleting_a_catalog_records_a_version_without_messages(admin_client, catalogs):
    pk = TranslationCatalog.objects.get(locale="fr").pk
    response = admin_client.post(f"/admin/content/translationcatalog/{pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not TranslationCatalog.objects.filter(locale="fr").exists()
    latest = TranslationCatalogVersion.objects.filter(locale="fr").order_by("-number")[0]
    assert (latest.number, latest.messages) == (2, None)


def test_the_catalog_page_lists_its_versions_who_and_when(admin_client, catalogs):
    catalog_put(locale="fr", messages={"bye": "Au revoir"}, actor="editor")
    html = admin_client.get(change_url("fr")).content.decode()

    history = html[html.index('id="versions"') :]
    assert re.search(r"v2</a> <strong>\(current\)</strong>.*?editor", history, re.S)
    assert re.search(r"v1</a>\s*</td>\s*<td>tests</td>", history)
    assert "/admin/content/translationcatalog/versions/fr/diff/" in history


def test_the_diff_names_the_keys_added_removed_and_changed_and_shows_the_lines(
    admin_client, catalogs
):
    catalog_put(
        locale="fr",
        messages={
            "welcome": {"subject": "Salut, {{ name }}", "greeting": "Bonjour {{ name }} !"},
            "bye": "Au revoir",
        },
        actor="editor",
    )
    response = admin_client.get("/admin/content/translationcatalog/versions/fr/diff/?a=1&b=2")

    assert response.status_code == 200
    html = unescape(response.content.decode())
    summary = re.findall(r"<li>(.*?)</li>", html[html.index("diff-summary") :])
    assert summary[:3] == ["bye added", "cart.items removed", "welcome.subject changed"]
    assert '<span class="remove">-    "subject": "Bienvenue, {{ name }}",</span>' in html
    assert '<span class="add">+    "subject": "Salut, {{ name }}",</span>' in html


def test_a_deleted_catalogs_history_stays_comparable(admin_client, catalogs):
    catalog_delete(locale="fr", actor="editor")
    response = admin_client.get("/admin/content/translationcatalog/versions/fr/diff/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "catalog deleted" in html and "version 2</a> (deleted)" in html
    versions = admin_client.get("/admin/content/translationcatalogversion/?locale=fr")
    assert "versions/fr/diff/?a=1&amp;b=2" in versions.content.decode()


@pytest.mark.parametrize("query", ["?a=1&b=9", "?a=x", ""])
def test_the_diff_of_versions_that_are_not_there_is_a_404(admin_client, catalogs, query):
    locale = "fr" if query else "de"
    url = f"/admin/content/translationcatalog/versions/{locale}/diff/{query}"
    assert admin_client.get(url).status_code == 404


def test_versions_cannot_be_added_changed_or_deleted_in_the_admin(admin_client, catalogs):
    version = TranslationCatalogVersion.objects.get(locale="fr")
    page = admin_client.get(f"/admin/content/translationcatalogversion/{version.pk}/change/")

    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert admin_client.get("/admin/content/translationcatalogversion/add/").status_code == 403
