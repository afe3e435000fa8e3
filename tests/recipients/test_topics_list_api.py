"""Topics listed, and a person's topics (docs/design/recipients.md, "Topics and fan-out"): pages of topics
by key with their subscriber counts, in a number of queries that does not grow with the page;
a person's subscriptions with their topics; an unknown person is a 404."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from recipients.models import Recipient, Topic, TopicSubscription
from tests.conftest import unique

pytestmark = pytest.mark.django_db


def topics(count: int) -> list[str]:
    keys = sorted(unique("topic") for _ in range(count))
    Topic.objects.bulk_create([Topic(key=key, name=key.upper()) for key in keys])
    return keys


def person(*subscribed: str) -> str:
    key = unique("person")
    Recipient.objects.create(key=key)
    TopicSubscription.objects.bulk_create(
        [TopicSubscription(topic_id=t, recipient_id=key) for t in subscribed]
    )
    return key


def listed(api_client, path: str) -> list[dict]:
    response = api_client.get(path)
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_topics_are_listed_by_key_with_their_subscriber_counts(api_client):
    first, second = topics(2)
    person(first, second), person(first)

    rows = {row["key"]: row for row in listed(api_client, "/api/topics/")}

    assert rows[first]["subscribers"] == 2 and rows[second]["subscribers"] == 1
    assert rows[first]["name"] == first.upper()
    assert set(rows[first]) == {"key", "name", "description", "subscribers", "created_at"}


def test_listing_topics_costs_the_same_queries_for_a_full_page(api_client):
    Topic.objects.all().delete()
    topics(1)
    listed(api_client, "/api/topics/")  # the key's first use writes its own row
    with CaptureQueriesContext(connection) as one:
        listed(api_client, "/api/topics/")
    for key in topics(20):
        person(key)
    with CaptureQueriesContext(connection) as twenty:
        assert len(listed(api_client, "/api/topics/")) == 21

    assert len(twenty) == len(one)


def test_a_persons_topics_are_their_subscriptions_by_topic_key(api_client):
    first, second, third = topics(3)
    key = person(third, first)
    person(second)

    rows = listed(api_client, f"/api/recipients/{key}/topics/")

    assert [row["key"] for row in rows] == [first, third]
    assert set(rows[0]) == {"key", "name", "description", "subscribed_at"}


def test_an_unknown_person_has_no_topics_404(api_client):
    response = api_client.get("/api/recipients/no-such-person/topics/")

    assert response.status_code == 404
    assert response.json() == {"detail": "no recipient 'no-such-person'"}


def test_an_unknown_query_parameter_is_a_400_naming_it(api_client):
    response = api_client.get("/api/topics/?serach=x")

    assert response.status_code == 400
    assert "serach" in response.json()["errors"]
