"""`GET/PUT /api/recipients/<id>/preferences/` (docs/design/recipients.md, "Preferences"): a PUT replaces
the person's preferences; an unknown person is a 404; an unknown key, channel, category or
workflow, or a value that is not true or false, is a 400 naming its path; nothing is saved then."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from recipients.models import Category, Recipient
from tests.conftest import unique
from tests.factories import WorkflowFactory
from triggers.api_keys import api_key_create
from triggers.models import ApiKeyScope

pytestmark = pytest.mark.django_db


@pytest.fixture
def person() -> Recipient:
    return Recipient.objects.create(key=unique("user"), email="ada@example.com")


def url(key: str) -> str:
    return f"/api/recipients/{key}/preferences/"


def test_a_new_person_has_said_nothing(api_client, person):
    answer = api_client.get(url(person.key))

    assert answer.status_code == 200
    assert answer.json() == {"channels": {}, "categories": {}, "workflows": {}}


def test_a_put_replaces_them_and_a_get_reads_them_back(api_client, person):
    Category.objects.create(slug="comments")
    workflow = WorkflowFactory()
    body = {
        "channels": {"sms": False},
        "categories": {"comments": {"email": False}, "marketing": False},
        "workflows": {workflow.key: True},
    }

    put = api_client.put(url(person.key), body, format="json")
    again = api_client.put(url(person.key), {"channels": {"email": False}}, format="json")

    assert put.status_code == 200 and put.json() == body
    assert again.json() == {"channels": {"email": False}, "categories": {}, "workflows": {}}
    assert api_client.get(url(person.key)).json() == again.json()
    person.refresh_from_db()
    assert person.preferences == again.json()


def test_an_unknown_person_is_a_404(api_client):
    assert api_client.get(url("nobody-here")).status_code == 404
    assert api_client.put(url("nobody-here"), {}, format="json").status_code == 404


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"channel": {"sms": False}}, "channel"),
        ({"channels": []}, "channels"),
        ({"channels": {"sms": "no"}}, "channels.sms"),
        ({"channels": {"sms": 0}}, "channels.sms"),
        ({"channels": {"pigeon": False}}, "channels.pigeon"),
        ({"categories": {"no-such-category": False}}, "categories.no-such-category"),
        ({"categories": {"marketing": "off"}}, "categories.marketing"),
        ({"categories": {"marketing": {"email": None}}}, "categories.marketing.email"),
        ({"categories": {"marketing": {"fax": False}}}, "categories.marketing.fax"),
        ({"workflows": {"no-such-workflow": False}}, "workflows.no-such-workflow"),
        ([], "body"),
    ],
)
def test_bad_input_is_a_400_naming_its_path_and_saves_nothing(api_client, person, body, path):
    answer = api_client.put(url(person.key), body, format="json")

    assert answer.status_code == 400, answer.json()
    assert path in answer.json()["errors"], answer.json()
    person.refresh_from_db()
    assert person.preferences == {}


def test_a_trigger_scoped_key_may_read_and_write_them(person):
    _, key = api_key_create(name=unique("client"), scope=ApiKeyScope.TRIGGER)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")

    answer = client.put(url(person.key), {"channels": {"sms": False}}, format="json")

    assert answer.status_code == 200


def test_a_near_miss_of_a_key_gets_a_did_you_mean(api_client, person):
    answer = api_client.put(url(person.key), {"chanels": {"sms": False}}, format="json")

    assert answer.json()["errors"]["chanels"] == ["unknown field; did you mean 'channels'?"]


def test_a_patch_changes_only_the_keys_it_names_and_null_removes_one(api_client, person):
    Category.objects.create(slug="comments")
    workflow = WorkflowFactory()
    person.preferences = {
        "channels": {"sms": False, "email": True},
        "categories": {"comments": {"email": False}},
        "workflows": {workflow.key: False},
    }
    person.save()

    answer = api_client.patch(
        url(person.key),
        {"channels": {"sms": True, "email": None}, "categories": {"comments": False}},
        format="json",
    )

    assert answer.status_code == 200, answer.json()
    stored = {
        "channels": {"sms": True},
        "categories": {"comments": False},
        "workflows": {workflow.key: False},
    }
    assert answer.json() == stored
    person.refresh_from_db()
    assert person.preferences == stored


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"chanels": {"sms": False}}, "chanels"),
        ({"channels": {"pigeon": False}}, "channels.pigeon"),
        ({"channels": {"sms": "no"}}, "channels.sms"),
        ({"workflows": {"no-such": None, "no-such-either": True}}, "workflows.no-such-either"),
    ],
)
def test_a_bad_patch_is_a_400_naming_its_path_and_saves_nothing(api_client, person, body, path):
    answer = api_client.patch(url(person.key), body, format="json")

    assert answer.status_code == 400 and path in answer.json()["errors"], answer.json()
    person.refresh_from_db()
    assert person.preferences == {}


def test_a_patch_of_an_unknown_person_is_a_404_naming_them(api_client):
    answer = api_client.patch(url("nobody-here"), {"channels": {"sms": False}}, format="json")

    assert answer.status_code == 404
    assert answer.json() == {"detail": "no recipient 'nobody-here'"}
