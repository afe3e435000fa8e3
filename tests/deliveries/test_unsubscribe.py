"""One-click unsubscribe (RFC 8058; docs/security/index.md): a POST with the signed link suppresses its
recipient for marketing, without login, as often as it comes; a GET changes nothing; a bad or
expired link is a 400. Like a provider's unsubscribe, it leaves a delivery event about the message
and a `message.unsubscribed`."""

from __future__ import annotations

import time

import pytest

from deliveries.models import DeliveryEvent, Suppression
from deliveries.suppression import unsubscribe_token
from events import catalog
from events.models import OutboxEvent, WebhookEndpoint
from events.services.endpoints import endpoint_create
from tests.deliveries.support import sent

pytestmark = pytest.mark.django_db


def url(token: str) -> str:
    return f"/deliveries/unsubscribe/{token}/"


def test_a_one_click_post_suppresses_for_marketing_once(client):
    token = unsubscribe_token(channel="email", recipient="Ada@Example.com")

    first = client.post(
        url(token), "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    again = client.post(
        url(token), "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )

    assert first.status_code == again.status_code == 200
    (row,) = Suppression.objects.filter(recipient="ada@example.com")
    assert (row.channel, row.scope, row.reason) == ("email", "marketing", "unsubscribed")


def test_a_get_shows_a_button_and_changes_nothing(client):
    token = unsubscribe_token(channel="email", recipient="bo@example.com")

    page = client.get(url(token))

    assert page.status_code == 200
    assert b'<form method="post">' in page.content and b"bo@example.com" in page.content
    assert not Suppression.objects.filter(recipient="bo@example.com").exists()


def test_a_forged_or_expired_link_is_a_400_and_changes_nothing(client, monkeypatch, settings):
    token = unsubscribe_token(channel="email", recipient="cy@example.com")

    assert client.post(url(token[:-3] + "abc")).status_code == 400
    later = time.time() + (settings.NOTIFLOW_UNSUBSCRIBE_MAX_AGE_DAYS + 1) * 86400
    monkeypatch.setattr("django.core.signing.time.time", lambda: later)
    expired = client.post(url(token))
    assert expired.status_code == 400 and b"expired" in expired.content

    assert not Suppression.objects.filter(recipient="cy@example.com").exists()


def one_click(client, token: str):
    return client.post(
        url(token), "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )


def test_a_one_click_unsubscribe_leaves_a_delivery_event_and_a_message_unsubscribed(client):
    WebhookEndpoint.objects.all().delete()  # set aside those of committed tests (rolled back)
    endpoint_create(url="http://127.0.0.1:9/hook", events=["message.unsubscribed"])
    trigger = sent("one-click-1", to="ada@example.com", provider="smtp")
    token = unsubscribe_token(
        channel="email", recipient="ada@example.com", idempotency_key=f"{trigger.pk}:mail"
    )

    assert one_click(client, token).status_code == one_click(client, token).status_code == 200

    (event,) = DeliveryEvent.objects.filter(trigger_id=trigger.pk)
    assert (event.event, event.node_id, event.recipient) == (
        "unsubscribed",
        "mail",
        "ada@example.com",
    )
    assert "one-click" in event.description
    (row,) = Suppression.objects.filter(recipient="ada@example.com")
    assert (row.scope, row.reason) == ("marketing", "unsubscribed")
    assert row.source == f"one-click unsubscribed event {event.pk}"
    (announced,) = OutboxEvent.objects.filter(trigger_id=trigger.pk)
    assert announced.type == catalog.MESSAGE_UNSUBSCRIBED
    assert announced.data["message"]["to"] == "ada@example.com"


def test_a_one_click_after_an_operator_removed_the_entry_suppresses_again(client):
    trigger = sent("one-click-2", to="bo@example.com", provider="smtp")
    token = unsubscribe_token(
        channel="email", recipient="bo@example.com", idempotency_key=f"{trigger.pk}:mail"
    )
    one_click(client, token)
    Suppression.objects.filter(recipient="bo@example.com").delete()  # as the API does

    assert one_click(client, token).status_code == 200

    assert Suppression.objects.filter(recipient="bo@example.com", scope="marketing").exists()
    assert DeliveryEvent.objects.filter(trigger_id=trigger.pk).count() == 1


@pytest.mark.parametrize(
    "accept", [None, "*/*", "text/html", "application/json", "text/plain; charset=utf-8"]
)
def test_a_providers_one_click_post_unsubscribes_whatever_its_accept(client, accept):
    """RFC 8058: the mail provider POSTs `List-Unsubscribe=One-Click` form-encoded, with an
    Accept of its own (or none); the view negotiates nothing."""
    token = unsubscribe_token(channel="email", recipient="di@example.com")
    extra = {} if accept is None else {"HTTP_ACCEPT": accept}

    answer = client.post(
        url(token),
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
        **extra,
    )

    assert answer.status_code == 200
    assert Suppression.objects.filter(recipient="di@example.com", scope="marketing").exists()
