"""Preference categories over the API (docs/design/recipients.md, "Preferences"): an admin key makes,
replaces, reads, lists and deletes them as the admin's form does; a default names a channel
some node type sends on; a category a workflow names cannot be deleted, and deleting one takes
it out of people's preferences."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from recipients.models import Category, Recipient
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node
from triggers.api_keys import api_key_create

pytestmark = pytest.mark.django_db


def url(slug: str = "") -> str:
    return f"/api/categories/{slug}/" if slug else "/api/categories/"


def test_put_creates_then_replaces_every_field_and_get_reads_it(api_client):
    slug = unique("comments")
    body = {"name": "Comments", "description": "Replies", "defaults": {"sms": False}}

    created = api_client.put(url(slug), body, format="json")
    replaced = api_client.put(url(slug), {"name": "Replies"}, format="json")

    assert created.status_code == 201, created.content
    assert created.json() == {"slug": slug, **body}
    assert replaced.status_code == 200
    assert replaced.json() == {"slug": slug, "name": "Replies", "description": "", "defaults": {}}
    assert api_client.get(url(slug)).json() == replaced.json()
    assert Category.objects.get(slug=slug).defaults == {}


def test_the_list_is_paginated_by_slug(api_client):
    slugs = sorted(unique("cat") for _ in range(3))
    for slug in reversed(slugs):
        Category.objects.create(slug=slug)

    page = api_client.get(url()).json()

    listed = [row["slug"] for row in page["results"]]
    assert [s for s in listed if s in slugs] == slugs
    assert page["count"] >= 3 and "next" in page


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"defaults": {"pigeon": True}}, "defaults.pigeon"),
        ({"defaults": {"sms": "no"}}, "defaults.sms"),
        ({"nmae": "Comments"}, "nmae"),
        ({"name": 12}, "name"),
    ],
)
def test_a_bad_field_is_a_400_naming_it_and_stores_nothing(api_client, body, field):
    slug = unique("cat")

    response = api_client.put(url(slug), body, format="json")

    assert response.status_code == 400
    assert field in response.json()["errors"], response.json()
    assert not Category.objects.filter(slug=slug).exists()


def test_a_slug_that_is_not_one_is_a_400_naming_slug(api_client):
    response = api_client.put(url("not%20a%20slug"), {}, format="json")

    assert response.status_code == 400
    assert "slug" in response.json()["errors"]


def test_unknown_categories_are_404(api_client):
    for response in (api_client.get(url("no-such")), api_client.delete(url("no-such"))):
        assert response.status_code == 404
        assert response.json() == {"detail": "no category 'no-such'"}


def test_delete_takes_the_category_out_of_peoples_preferences(api_client):
    slug, other = unique("cat"), unique("cat")
    Category.objects.create(slug=slug)
    person = Recipient.objects.create(
        key=unique("p"), preferences={"categories": {slug: False, other: {"sms": False}}}
    )

    response = api_client.delete(url(slug))

    assert response.status_code == 204
    assert not Category.objects.filter(slug=slug).exists()
    person.refresh_from_db()
    assert person.preferences == {"categories": {other: {"sms": False}}}


def test_a_category_a_workflow_names_is_not_deleted_409_naming_the_workflow(api_client):
    slug = unique("billing")
    Category.objects.create(slug=slug)
    workflow = WorkflowFactory(
        definition={**chain(email_node("mail")), "preference_category": slug}
    )

    response = api_client.delete(url(slug))

    assert response.status_code == 409
    assert response.json()["workflows"] == [workflow.key]
    assert workflow.key in response.json()["detail"]
    assert Category.objects.filter(slug=slug).exists()


@pytest.mark.parametrize("method", ["get", "put", "delete"])
def test_a_trigger_key_may_not_touch_categories(method):
    slug = unique("cat")
    Category.objects.create(slug=slug)
    _, key = api_key_create(name=unique("k"))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")

    response = getattr(api, method)(url(slug), {}, format="json")

    assert response.status_code == 403
    assert "admin" in response.json()["detail"]
    assert api.get(url()).status_code == 403
    assert Category.objects.get(slug=slug).name == ""
