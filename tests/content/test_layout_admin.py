"""Layouts and partials in the admin (docs/layouts.md, "6. In the admin, the preview and as code"): edited through
content/services.py (each save a version), refused as the API refuses them (each problem on its
field), their history compared version by version; the workflow preview shows an email in its
layout."""

from __future__ import annotations

import re
from html import unescape

import pytest

from content.models import ContentVersion, Layout, Partial
from content.selectors import PIECES
from content.services import layout_put, partial_put
from tests.factories import WorkflowFactory, chain, email_node

pytestmark = pytest.mark.django_db

LAYOUT = {"key": "brand", "name": "Brand", "html": "<main>{{ content }}</main>", "text": ""}


@pytest.fixture(autouse=True)
def fresh_cache():
    PIECES.forget()
    yield
    PIECES.forget()


def test_adding_a_layout_saves_it_through_the_services_as_version_1(admin_client):
    response = admin_client.post("/admin/content/layout/add/", LAYOUT)
    assert response.status_code == 302, response.content.decode()[:2000]
    layout = Layout.objects.get()
    assert (layout.key, layout.version, layout.updated_by) == ("brand", 1, "admin:operator")
    version = ContentVersion.objects.get(key="brand")
    assert (version.kind, version.key, version.number) == ("layout", "brand", 1)
    assert version.content == {"name": "Brand", "html": "<main>{{ content }}</main>", "text": ""}


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"html": "<main></main>"}, "html", "exactly once"),
        ({"text": "no slot"}, "text", "exactly once"),
        ({"html": "{{ content }}{% if %}"}, "html", "template"),
        ({"key": "Not A Key"}, "key", "lower-case"),
    ],
)
def test_a_layout_the_api_would_refuse_is_a_form_error_on_its_field(
    admin_client, fields, field, words
):
    response = admin_client.post("/admin/content/layout/add/", {**LAYOUT, **fields})
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert field in errors and words in " ".join(errors[field]), errors
    key = {**LAYOUT, **fields}["key"]  # versions are append-only: other tests' stay
    assert not Layout.objects.exists() and not ContentVersion.objects.filter(key=key).exists()


def test_changing_a_partial_writes_the_next_version_and_the_history_compares_them(admin_client):
    partial = partial_put(key="footer", content="<p>one</p>", actor="tests")[0]
    url = f"/admin/content/partial/{partial.pk}/change/"
    assert admin_client.post(url, {"key": "other", "content": "<p>two</p>"}).status_code == 302
    assert Partial.objects.get(key="footer").content == "<p>two</p>"
    assert not Partial.objects.filter(key="other").exists()  # the key is what it is

    page = admin_client.get(url).content.decode()
    assert "Version history" in page and "(current)" in page and "admin:operator" in page
    diff = admin_client.get("/admin/content/partial/versions/footer/diff/?a=1&b=2")
    text = unescape(diff.content.decode())
    assert "content changed" in text
    # The field's text as written, not a JSON string: `<p>`, not `"<p>`.
    assert re.search(r'class="context"> content:</span><span class="remove">-\s+<p>one</p>', text)
    assert re.search(r'class="add">\+\s+<p>two</p>', text)


def test_deleting_a_layout_records_a_version_without_content(admin_client):
    layout = layout_put(actor="tests", **LAYOUT)[0]
    response = admin_client.post(f"/admin/content/layout/{layout.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Layout.objects.exists()
    versions = ContentVersion.objects.filter(key="brand").order_by("number")
    assert list(versions.values_list("number", "content")) == [
        (1, {"name": "Brand", "html": "<main>{{ content }}</main>", "text": ""}),
        (2, None),
    ]
    assert admin_client.get("/admin/content/contentversion/").status_code == 200


def test_the_workflow_preview_shows_the_email_in_its_layout(admin_client):
    layout_put(key="brand", name="Brand", html="<main class=brand>{{ content }}</main>")
    partial_put(key="sign", content="-- {{ payload.name }}")
    workflow = WorkflowFactory(
        definition={
            **chain(email_node("mail", body='Hi\n{% render "sign" %}')),
            "default_layout": "brand",
        }
    )
    response = admin_client.post(
        f"/admin/workflows/workflow/{workflow.pk}/preview/",
        {"payload": '{"email": "a@example.com", "name": "Ada"}'},
    )
    assert response.status_code == 200
    (node,) = response.context["preview"].nodes
    assert node.value("html") == "<main class=brand>Hi<br>\n-- Ada</main>"
    assert 'srcdoc="&lt;main class=brand&gt;Hi&lt;br&gt;' in response.content.decode()
