"""The suppression list over the API (docs/design/api.md, HTTP API): admin scope, validated,
idempotent adds, filters, removal."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from deliveries.models import Suppression
from triggers.api_keys import api_key_create
from triggers.models import ApiKeyScope

pytestmark = pytest.mark.django_db


def address() -> str:
    return f"Someone-{uuid.uuid4().hex[:8]}@Example.com"


def test_adding_is_idempotent_and_normalises_the_recipient(api_client):
    who = address()

    first = api_client.post(
        "/api/suppressions/", {"channel": "email", "recipient": who}, format="json"
    )
    again = api_client.post(
        "/api/suppressions/", {"channel": "email", "recipient": who.upper()}, format="json"
    )

    assert first.status_code == 201 and again.status_code == 200
    assert first.json()["id"] == again.json()["id"]
    assert first.json()["recipient"] == who.lower()
    assert (first.json()["scope"], first.json()["reason"]) == ("all", "manual")


def test_an_entry_added_over_the_api_records_the_key_name_as_its_source():
    name = f"crm-{uuid.uuid4().hex[:8]}"
    _, key = api_key_create(name=name, scope=ApiKeyScope.ADMIN)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")

    body = {"channel": "email", "recipient": address()}
    added = client.post("/api/suppressions/", body, format="json")

    assert added.status_code == 201 and added.json()["source"] == f"api:{name}"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"channel": "email", "recipient": "not an address"}, "recipient"),
        ({"channel": "sms", "recipient": "555-0100"}, "recipient"),
        ({"channel": "fax", "recipient": "+15550100"}, "channel"),
        ({"channel": "email", "recipient": "a@example.com", "scope": "some"}, "scope"),
        ({"channel": "email", "recipient": 7}, "recipient"),
    ],
)
def test_a_bad_entry_is_a_400_naming_the_field(api_client, body, field):
    response = api_client.post("/api/suppressions/", body, format="json")

    assert response.status_code == 400
    assert field in response.json()["errors"]


def test_an_sms_number_is_stored_in_e164(api_client):
    response = api_client.post(
        "/api/suppressions/", {"channel": "sms", "recipient": "+1 (555) 010-7788"}, format="json"
    )

    assert response.status_code == 201 and response.json()["recipient"] == "+15550107788"


def test_the_list_filters_and_a_delete_removes(api_client):
    who = address()
    created = api_client.post(
        "/api/suppressions/",
        {"channel": "email", "recipient": who, "scope": "marketing", "reason": "unsubscribed"},
        format="json",
    ).json()

    listed = api_client.get(f"/api/suppressions/?recipient={who}&scope=marketing").json()
    assert [row["id"] for row in listed["results"]] == [created["id"]]
    assert api_client.get(f"/api/suppressions/?recipient={who}&scope=all").json()["results"] == []
    assert api_client.get("/api/suppressions/?channel=fax").status_code == 400

    assert api_client.delete(f"/api/suppressions/{created['id']}/").status_code == 204
    assert not Suppression.objects.filter(pk=created["id"]).exists()
    assert api_client.delete(f"/api/suppressions/{created['id']}/").status_code == 404
