"""Deliveries in the admin: the suppression list (add with the recipient checked, remove), and
what providers reported on the run's timeline."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.deliveries.support import basic_auth, sent
from tests.deliveries.test_tracking_webhooks import post_sns, ses_bounce
from workers.models import Suppression

pytestmark = pytest.mark.django_db


def test_an_operator_adds_and_removes_a_suppression(admin_client):
    added = admin_client.post(
        "/admin/workers/suppression/add/",
        {"channel": "email", "recipient": "Op@Example.com", "scope": "all", "reason": "manual"},
    )
    assert added.status_code == 302, added.content[:2000]
    row = Suppression.objects.get(recipient="op@example.com")
    assert row.source == "admin:operator"

    bad = admin_client.post(
        "/admin/workers/suppression/add/",
        {"channel": "sms", "recipient": "call me", "scope": "all", "reason": "manual"},
    )
    assert bad.status_code == 200 and b"E.164" in bad.content

    removed = admin_client.post(
        "/admin/workers/suppression/",
        {"action": "remove_selected", "_selected_action": [row.pk]},
        follow=True,
    )
    assert b"1 recipient(s) may be sent to again." in removed.content
    assert not Suppression.objects.filter(pk=row.pk).exists()


def test_the_run_page_shows_what_the_provider_reported(client, admin_client, esps):
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="jane@example.com")
    post_sns(client, ses_bounce(message_id), **basic_auth())

    page = admin_client.get(f"/admin/triggers/triggerinstance/{trigger.pk}/change/")

    assert page.status_code == 200
    assert b'<tr class="delivery" data-node-id="mail">' in page.content
    assert b"ses: <strong>bounced</strong>" in page.content
    assert json.dumps("Jane@example.com")[1:-1].encode() in page.content
