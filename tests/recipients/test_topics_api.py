"""Topics and their subscribers over the API (docs/design/recipients.md, "Topics and fan-out"): a topic is
created or replaced by PUT, subscribers are added and removed up to 1,000 ids a call with a
result per id in order (an unknown id is its item's 404), and read a page at a time behind an
opaque cursor."""

from __future__ import annotations

import pytest

from recipients.models import Recipient, Topic, TopicSubscription
from recipients.topics import TOPIC_BATCH_MAX, cursor_encode
from tests.conftest import unique

pytestmark = pytest.mark.django_db


def people(count: int, prefix: str = "user") -> list[str]:
    keys = [unique(prefix) for _ in range(count)]
    Recipient.objects.bulk_create([Recipient(key=key) for key in keys])
    return keys


def topic_url(key: str, tail: str = "") -> str:
    return f"/api/topics/{key}/{tail}"


def a_topic(api_client, **fields) -> str:
    key = unique("project")
    assert api_client.put(topic_url(key), fields, format="json").status_code == 201
    return key


def test_put_creates_then_replaces_and_get_counts_subscribers(api_client):
    key = unique("project")
    created = api_client.put(topic_url(key), {"name": "P", "description": "d"}, format="json")
    assert created.status_code == 201
    assert created.json()["subscribers"] == 0
    replaced = api_client.put(topic_url(key), {"name": "Project"}, format="json")
    assert replaced.status_code == 200
    assert (replaced.json()["name"], replaced.json()["description"]) == ("Project", "")
    TopicSubscription.objects.bulk_create(
        [TopicSubscription(topic_id=key, recipient_id=r) for r in people(3)]
    )
    shown = api_client.get(topic_url(key)).json()
    assert shown["key"] == key and shown["subscribers"] == 3


def test_subscribe_answers_each_id_in_order_and_stores_the_known_ones_once(api_client):
    key = a_topic(api_client)
    ann, bob = people(2)
    body = {"recipients": [ann, "nobody-here", bob, ann]}

    first = api_client.post(topic_url(key, "subscribers/"), body, format="json")
    again = api_client.post(topic_url(key, "subscribers/"), {"recipients": [bob]}, format="json")

    assert first.status_code == 200
    results = first.json()["results"]
    assert [(r["index"], r["recipient"], r["status"]) for r in results] == [
        (0, ann, 201), (1, "nobody-here", 404), (2, bob, 201), (3, ann, 200)
    ]  # fmt: skip
    assert "nobody-here" in results[1]["detail"]
    assert again.json()["results"][0]["status"] == 200
    assert sorted(
        TopicSubscription.objects.filter(topic_id=key).values_list("recipient_id", flat=True)
    ) == sorted([ann, bob])


def test_unsubscribe_removes_and_names_unknown_ids(api_client):
    key = a_topic(api_client)
    ann, bob, cid = people(3)
    api_client.post(topic_url(key, "subscribers/"), {"recipients": [ann, bob]}, format="json")

    response = api_client.delete(
        topic_url(key, "subscribers/"), {"recipients": [ann, "ghost", cid]}, format="json"
    )

    results = response.json()["results"]
    assert [(r["status"], r.get("changed")) for r in results] == [
        (200, True), (404, None), (200, False)
    ]  # fmt: skip
    assert list(
        TopicSubscription.objects.filter(topic_id=key).values_list("recipient_id", flat=True)
    ) == [bob]


def test_a_call_takes_at_most_a_thousand_ids_and_a_topic_must_exist(api_client):
    key = a_topic(api_client)
    too_many = {"recipients": [f"u{i}" for i in range(TOPIC_BATCH_MAX + 1)]}
    refused = api_client.post(topic_url(key, "subscribers/"), too_many, format="json")
    assert refused.status_code == 400 and "recipients" in refused.json()["errors"]
    missing = api_client.post(
        topic_url(unique("nope"), "subscribers/"), {"recipients": ["a"]}, format="json"
    )
    assert missing.status_code == 404
    empty = api_client.post(topic_url(key, "subscribers/"), {"recipients": []}, format="json")
    assert empty.status_code == 400


def test_subscribers_are_paged_by_an_opaque_cursor_in_subscription_order(api_client):
    key = a_topic(api_client)
    keys = people(5)
    for recipient in keys:  # one call each: the subscription order is this order
        api_client.post(topic_url(key, "subscribers/"), {"recipients": [recipient]}, format="json")

    seen, cursor, pages = [], None, 0
    while True:
        url = topic_url(key, "subscribers/?limit=2") + (f"&cursor={cursor}" if cursor else "")
        page = api_client.get(url).json()
        seen += [row["recipient"] for row in page["results"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
        assert not cursor.isdigit()  # opaque, not the id itself

    assert seen == keys and pages == 3


@pytest.mark.parametrize("cursor", ["not-a-cursor", "czE6eA==", cursor_encode(1) + "x"])
def test_a_cursor_the_api_did_not_give_is_a_400_naming_it(api_client, cursor):
    key = a_topic(api_client)
    response = api_client.get(topic_url(key, f"subscribers/?cursor={cursor}"))
    assert response.status_code == 400 and "cursor" in response.json()["errors"]


@pytest.mark.parametrize("limit", ["0", "1001", "x", "99999999999"])
def test_a_limit_out_of_range_is_a_400(api_client, limit):
    key = a_topic(api_client)
    response = api_client.get(topic_url(key, f"subscribers/?limit={limit}"))
    assert response.status_code == 400 and "limit" in response.json()["errors"]


def test_delete_removes_the_topic_and_its_subscriptions_not_the_people(api_client):
    key = a_topic(api_client)
    (ann,) = people(1)
    api_client.post(topic_url(key, "subscribers/"), {"recipients": [ann]}, format="json")

    assert api_client.delete(topic_url(key)).status_code == 204
    assert api_client.delete(topic_url(key)).status_code == 404
    assert not Topic.objects.filter(key=key).exists()
    assert not TopicSubscription.objects.filter(topic_id=key).exists()
    assert Recipient.objects.filter(key=ann).exists()


def test_a_topic_key_over_200_characters_is_a_400(api_client):
    response = api_client.put(topic_url("k" * 201), {}, format="json")
    assert response.status_code == 400 and "topic_key" in response.json()["errors"]


def test_an_unknown_topic_is_a_json_404_naming_its_key(api_client):
    for method, tail, body in (
        ("get", "", None),
        ("delete", "", None),
        ("get", "subscribers/", None),
        ("post", "subscribers/", {"recipients": ["a"]}),
    ):
        answer = getattr(api_client, method)(topic_url("no-such", tail), body, format="json")
        assert answer.status_code == 404
        assert answer.json() == {"detail": "no topic 'no-such'"}, (method, tail)
