"""Topics and fan-outs in the admin (docs/operations/people-and-channels.md, "Topics and fan-outs")."""

from __future__ import annotations

import pytest

from recipients.models import Fanout, Recipient, Topic, TopicSubscription
from tests.conftest import unique

pytestmark = pytest.mark.django_db


def test_topics_list_their_subscriber_count_and_a_topic_page_its_subscribers(admin_client):
    topic = Topic.objects.create(key=unique("project"), name="Project")
    keys = [unique("user") for _ in range(3)]
    Recipient.objects.bulk_create([Recipient(key=key) for key in keys])
    TopicSubscription.objects.bulk_create(
        [TopicSubscription(topic=topic, recipient_id=key) for key in keys]
    )

    listing = admin_client.get("/admin/recipients/topic/").content.decode()
    page = admin_client.get(f"/admin/recipients/topic/{topic.key}/change/").content.decode()
    every = admin_client.get(f"/admin/recipients/topicsubscription/?topic__key={topic.key}")

    assert topic.key in listing and '<td class="field-subscriber_count">3</td>' in listing
    assert all(f"<li>{key}</li>" in page for key in keys)
    assert every.status_code == 200 and all(key in every.content.decode() for key in keys)


def test_fanouts_are_listed_read_only(admin_client):
    fanout = Fanout.objects.create(
        workflow_key="wf", topic_key="t", idempotency_key=unique("k"), request_hash="h", created=7
    )
    listing = admin_client.get("/admin/recipients/fanout/").content.decode()
    page = admin_client.get(f"/admin/recipients/fanout/{fanout.pk}/change/")
    assert str(fanout.pk) in listing
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
