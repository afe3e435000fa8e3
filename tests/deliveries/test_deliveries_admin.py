"""Deliveries in the admin: the suppression list (add with the recipient checked, remove), and
what providers reported on the run's timeline."""

from __future__ import annotations

import json
import re
import uuid

import pytest

from deliveries.models import Suppression
from tests.deliveries.support import basic_auth, sent
from tests.deliveries.test_tracking_webhooks import post_sns, ses_bounce

pytestmark = pytest.mark.django_db


def test_an_operator_adds_and_removes_a_suppression(admin_client):
    added = admin_client.post(
        "/admin/deliveries/suppression/add/",
        {"channel": "email", "recipient": "Op@Example.com", "scope": "all", "reason": "manual"},
    )
    assert added.status_code == 302, added.content[:2000]
    row = Suppression.objects.get(recipient="op@example.com")
    assert row.source == "admin:operator"

    bad = admin_client.post(
        "/admin/deliveries/suppression/add/",
        {"channel": "sms", "recipient": "call me", "scope": "all", "reason": "manual"},
    )
    assert bad.status_code == 200 and b"E.164" in bad.content

    removed = admin_client.post(
        "/admin/deliveries/suppression/",
        {"action": "remove_selected", "_selected_action": [row.pk]},
        follow=True,
    )
    assert b"1 recipient(s) may be sent to again." in removed.content
    assert not Suppression.objects.filter(pk=row.pk).exists()


def test_the_scope_filter_and_column_say_what_each_scope_keeps_from_the_recipient(admin_client):
    Suppression.objects.create(channel="email", recipient="a@example.com", reason="bounced")
    Suppression.objects.create(
        channel="email", recipient="b@example.com", scope="marketing", reason="unsubscribed"
    )
    page = admin_client.get("/admin/deliveries/suppression/")
    html = page.content.decode()

    scope_filter = html[html.index("By scope") :]
    scope_filter = scope_filter[: scope_filter.index("</ul>")]
    assert re.findall(r'<a href="[^"]*"[^>]*>([^<]+)</a>', scope_filter) == [
        "All",
        "every message",
        "marketing only",
    ]
    assert '<td class="field-scope_shown">marketing only</td>' in html
    marketing = admin_client.get("/admin/deliveries/suppression/", {"scope": "marketing"})
    assert [r.recipient for r in marketing.context["cl"].result_list] == ["b@example.com"]


def test_the_suppression_list_keeps_added_in_view_with_five_columns(admin_client):
    Suppression.objects.create(
        channel="email",
        recipient="a.rather.long.address.of.someone@example.com",
        reason="bounced",
        source="ses:0000018f3c2a7e1d-8f3a2c1e-5b6d-4e7f-9a0b-1c2d3e4f5a6b-000000",
    )
    page = admin_client.get("/admin/deliveries/suppression/")

    assert list(page.context["cl"].list_display) == [
        "action_checkbox",
        "recipient_shown",
        "scope_shown",
        "reason",
        "source_cut",
        "added",
    ]
    html = page.content.decode()
    assert '<span class="nf-wrap">a.rather.long.address.of.someone@example.com</span>' in html
    assert 'class="nf-cut nf-clip" title="ses:0000018f' in html  # whole in the tooltip


def test_the_run_page_shows_what_the_provider_reported(client, admin_client, esps):
    message_id = f"0000{uuid.uuid4().hex}-000000"
    trigger = sent(message_id, to="jane@example.com")
    post_sns(client, ses_bounce(message_id), **basic_auth())

    page = admin_client.get(f"/admin/triggers/triggerinstance/{trigger.pk}/change/")

    assert page.status_code == 200
    assert b'<tr class="delivery" data-node-id="mail">' in page.content
    assert b"ses: <strong>bounced</strong>" in page.content
    assert json.dumps("Jane@example.com")[1:-1].encode() in page.content
