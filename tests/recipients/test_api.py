"""The recipients API (docs/design/recipients.md, "Recipients"): PUT creates or replaces, PATCH merges
(channels and properties shallowly, null removes a key), GET reads, the list searches, bulk
upserts with a result per item in order, DELETE erases and counts what it removed; every
invalid field is a 400 naming it."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from recipients.models import Fanout, Recipient, Topic, TopicSubscription
from tests.conftest import unique
from triggers.api_keys import api_key_create
from triggers.models import ApiKeyScope

pytestmark = pytest.mark.django_db


def url(key: str) -> str:
    return f"/api/recipients/{key}/"


def put(client, key, **fields):
    return client.put(url(key), fields, format="json")


def test_put_creates_then_replaces_and_leaves_out_fields_to_their_default(api_client):
    key = unique("user")
    created = put(api_client, key, email="ada@example.com", name="Ada", properties={"plan": "pro"})
    assert created.status_code == 201, created.content
    assert created.json()["id"] == key
    assert created.json()["properties"] == {"plan": "pro"}
    replaced = put(api_client, key, phone="+15550100")
    assert replaced.status_code == 200
    body = replaced.json()
    assert (body["email"], body["name"], body["phone"], body["properties"]) == (
        "",
        "",
        "+15550100",
        {},
    )


def test_patch_merges_the_fields_given_and_json_fields_shallowly(api_client):
    key = unique("user")
    put(api_client, key, email="ada@example.com", name="Ada", properties={"plan": "pro", "n": 1})
    response = api_client.patch(
        url(key),
        {"name": "Ada L.", "properties": {"n": 2, "plan": None, "new": {"a": 1}}},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["email"] == "ada@example.com"  # not given: kept
    assert body["name"] == "Ada L."
    assert body["properties"] == {"n": 2, "new": {"a": 1}}  # plan removed by null


def test_patch_creates_a_recipient_that_does_not_exist(api_client):
    key = unique("user")
    response = api_client.patch(url(key), {"timezone": "Europe/Paris"}, format="json")
    assert response.status_code == 201
    assert Recipient.objects.get(key=key).timezone == "Europe/Paris"


def test_get_reads_and_an_unknown_id_is_a_404(api_client):
    key = unique("user")
    put(api_client, key, name="Ada")
    assert api_client.get(url(key)).json()["name"] == "Ada"
    nobody = unique("nobody")
    assert (unknown := api_client.get(url(nobody))).status_code == 404
    assert unknown.json() == {"detail": f"no recipient {nobody!r}"}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("email", "not an address"),
        ("phone", "555-0100"),
        ("phone", "+0123"),
        ("timezone", "Mars/Olympus"),
        ("timezone", "../etc/passwd"),
        ("locale", "english please"),
        ("locale", "e"),
        ("channels", ["slack"]),
        ("properties", "plan=pro"),
        ("name", 42),
    ],
)
def test_each_invalid_field_is_a_400_naming_it(api_client, field, value):
    response = put(api_client, unique("user"), **{field: value})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [field]


def test_valid_shapes_are_accepted(api_client):
    response = put(
        api_client,
        unique("user"),
        email="ada@example.com",
        phone="+447700900123",
        locale="zh-Hant-TW",
        timezone="America/Argentina/Buenos_Aires",
    )
    assert response.status_code == 201, response.content


def test_several_invalid_fields_are_named_together_with_an_unknown_one(api_client):
    response = put(api_client, unique("user"), email="x", locale="!!", emial="a@example.com")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"email", "locale", "emial"}
    assert "did you mean 'email'" in response.json()["errors"]["emial"][0]


def test_an_id_over_200_characters_is_a_400_naming_id(api_client):
    response = put(api_client, "u" * 201, name="Ada")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["id"]


def test_the_list_searches_key_email_and_name(api_client):
    tag = unique("s")
    put(api_client, f"{tag}-1", email="zed@example.com", name="Zed")
    put(api_client, unique("other"), email=f"{tag}@example.com")
    put(api_client, unique("other"), name=f"Mx {tag.upper()}")
    put(api_client, unique("other"), name="Nobody")
    response = api_client.get("/api/recipients/", {"search": tag})
    assert response.status_code == 200
    assert response.json()["count"] == 3
    assert api_client.get("/api/recipients/", {"search": ""}).status_code == 400


def test_bulk_upserts_with_a_result_per_item_in_order(api_client):
    existing = unique("user")
    put(api_client, existing, email="old@example.com", name="Old")
    new = unique("user")
    items = [
        {"id": new, "email": "new@example.com"},
        {"id": existing, "name": "Renamed"},
        {"id": unique("user"), "phone": "nope"},
        "not an object",
        {"id": new, "name": "again"},
        {"email": "no-id@example.com"},
    ]
    response = api_client.post("/api/recipients/bulk/", {"recipients": items}, format="json")
    assert response.status_code == 200, response.content
    results = response.json()["results"]
    assert [r["index"] for r in results] == list(range(6))
    assert [r["status"] for r in results] == [201, 200, 400, 400, 400, 400]
    assert results[1]["recipient"] == {**results[1]["recipient"], "email": "old@example.com"}
    assert results[1]["recipient"]["name"] == "Renamed"
    assert list(results[2]["errors"]) == ["phone"]
    assert list(results[4]["errors"]) == ["id"]
    assert list(results[5]["errors"]) == ["id"]
    assert Recipient.objects.get(key=new).name == ""  # the repeated item changed nothing


def test_bulk_over_the_limit_stores_nothing(api_client, settings):
    settings.NOTIFLOW_BULK_MAX = 2
    items = [{"id": unique("user")} for _ in range(3)]
    response = api_client.post("/api/recipients/bulk/", {"recipients": items}, format="json")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["recipients"]
    assert not Recipient.objects.filter(key__in=[i["id"] for i in items]).exists()


def test_delete_erases_profile_preferences_and_subscriptions_and_counts_them(api_client):
    key = unique("user")
    put(api_client, key, email="ada@example.com")
    Recipient.objects.filter(key=key).update(
        preferences={"channels": {"sms": False}, "categories": {"comments": {"email": False}}}
    )
    for topic_key in (unique("topic"), unique("topic")):
        topic = Topic.objects.create(key=topic_key)
        TopicSubscription.objects.create(topic=topic, recipient_id=key)
    response = api_client.delete(url(key))
    assert response.status_code == 200, response.content
    assert response.json()["erased"] == {
        "profile": 1,
        "preferences": 2,
        "topic_subscriptions": 2,
        "fanout_exclusions": 0,
        "inbox_messages": 0,
    }
    assert "runs" in response.json()["kept"]
    assert not Recipient.objects.filter(key=key).exists()
    assert not TopicSubscription.objects.filter(recipient_id=key).exists()
    assert api_client.delete(url(key)).status_code == 404


def test_a_trigger_key_writes_and_reads_a_profile_but_may_not_list_or_erase():
    _, secret = api_key_create(name=unique("client"), scope=ApiKeyScope.TRIGGER)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    key = unique("user")
    assert put(client, key, name="Ada").status_code == 201
    assert client.get(url(key)).status_code == 200
    assert client.get("/api/recipients/").status_code == 403
    assert client.delete(url(key)).status_code == 403


def test_erase_takes_the_key_out_of_every_fanouts_exclude(api_client):
    key, other = unique("user"), unique("user")
    put(api_client, key, name="Ada")
    excluding = [
        Fanout.objects.create(
            workflow_key="w", topic_key="t", idempotency_key=unique("k"), exclude=exclude
        )
        for exclude in ([key, other], [key], [other])
    ]

    response = api_client.delete(url(key))

    assert response.status_code == 200, response.content
    assert response.json()["erased"]["fanout_exclusions"] == 2
    for fanout in excluding:
        fanout.refresh_from_db()
    assert [fanout.exclude for fanout in excluding] == [[other], [], [other]]


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("a/b", "may not contain '/'"),
        ("a\\b", "may not contain '/' or '\\'"),
        (".", "may not be '.' or '..'"),
        ("..", "may not be '.' or '..'"),
        ("bulk", "'bulk' is reserved"),
    ],
)
def test_a_key_that_cannot_round_trip_the_url_path_is_refused_everywhere(api_client, key, problem):
    bulk = api_client.post("/api/recipients/bulk/", {"recipients": [{"id": key}]}, format="json")
    assert bulk.status_code == 200, bulk.content
    (result,) = bulk.json()["results"]
    assert result["status"] == 400 and problem in result["errors"]["id"][0], result
    trigger = api_client.post(
        "/api/triggers/",
        {"workflow": "w", "idempotency_key": unique("k"), "recipient": {"id": key}},
        format="json",
    )
    assert trigger.status_code == 400 and "recipient" in trigger.json()["errors"], trigger.content
    by_id = api_client.post(
        "/api/triggers/",
        {"workflow": "w", "idempotency_key": unique("k"), "recipient": key},
        format="json",
    )
    assert by_id.status_code == 400 and "recipient" in by_id.json()["errors"], by_id.content
    assert not Recipient.objects.filter(key=key).exists()


def test_a_dot_segment_in_the_url_is_a_400_and_erases_nobody(api_client):
    # Stored before the rule: left in place (docs/security/recipients.md).
    Recipient.objects.create(key="..")

    for path in ("/api/recipients/%2e%2e/", "/api/recipients/%2E%2E/inbox-token/"):
        answer = api_client.delete(path) if "token" not in path else api_client.post(path)
        assert answer.status_code == 400, (path, answer.content)
        assert "may not be '.' or '..'" in answer.json()["errors"]["id"][0]
    assert Recipient.objects.filter(key="..").exists()
