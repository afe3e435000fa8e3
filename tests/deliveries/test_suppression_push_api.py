"""The suppression list takes the push channels' entries by recipient key (docs/design/channels.md,
"Push channels"): the engine matches them against a push node's person."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("channel", ["webpush", "push"])
def test_a_push_suppression_names_a_recipient_key(api_client, channel):
    response = api_client.post(
        "/api/suppressions/", {"channel": channel, "recipient": "user-42"}, format="json"
    )
    assert response.status_code == 201, response.content
    assert (response.json()["channel"], response.json()["recipient"]) == (channel, "user-42")


def test_a_push_suppression_refuses_what_cannot_be_a_recipient_key(api_client):
    response = api_client.post(
        "/api/suppressions/", {"channel": "push", "recipient": "u" * 201}, format="json"
    )
    assert response.status_code == 400
    assert "recipient's key" in response.content.decode()
