"""The recipient's page in the admin (docs/design/recipients.md, "Recipients"): profile, preferences,
subscriptions, runs, delivery events and suppressions in one place; the profile is edited with
the API's field rules; deleting is erasing. Screenshot in a real browser:
artifacts/screenshots/recipient-page.png."""

from __future__ import annotations

import json
import uuid

import pytest
from django.utils import timezone

from deliveries.models import DeliveryEvent
from deliveries.suppression import suppression_add
from recipients.models import Recipient, Topic, TopicSubscription
from tests.conftest import unique
from tests.factories import WorkflowFactory
from tests.inbox.test_feed_api import message
from tests.ops.test_admin_browser import browser_page, log_in, shot  # noqa: F401 (fixture)
from tests.triggers.support import new_trigger
from triggers.models import TriggerInstance


def ada_with_history() -> tuple[Recipient, TriggerInstance]:
    """A person with preferences, a topic, a run, a delivery event and a suppression."""
    ada = Recipient.objects.create(
        key=unique("user"),
        email=f"{unique('ada')}@example.com",
        phone="+15550123",
        name="Ada Lovelace",
        timezone="Europe/London",
        properties={"plan": "pro"},
        preferences={"channels": {"sms": False}},
    )
    topic = Topic.objects.create(key=unique("project"))
    TopicSubscription.objects.create(topic=topic, recipient=ada)
    run = new_trigger(WorkflowFactory())
    TriggerInstance.objects.filter(pk=run.pk).update(recipient=ada.key)
    DeliveryEvent.objects.create(
        trigger_id=run.pk,
        node_id="welcome",
        channel="email",
        provider="smtp",
        event="delivered",
        recipient=ada.email,
        dedupe_key=uuid.uuid4().hex,
        occurred_at=timezone.now(),
    )
    suppression_add(channel="sms", recipient=ada.phone, reason="unsubscribed")
    message(ada.key, "Your invoice is ready", age=60, seen_at=timezone.now())
    return ada, run


def page_of(recipient: Recipient) -> str:
    return f"/admin/recipients/recipient/{recipient.pk}/change/"


@pytest.mark.django_db
def test_the_page_shows_profile_preferences_topics_runs_deliveries_and_suppressions(
    admin_client,
):
    ada, run = ada_with_history()
    html = admin_client.get(page_of(ada)).content.decode()
    assert "Ada Lovelace" in html
    assert "&quot;sms&quot;: false" in html  # the preferences, as JSON
    assert TopicSubscription.objects.get(recipient=ada).topic_id in html
    assert f"/admin/triggers/triggerinstance/{run.pk}/change/" in html
    assert "delivered" in html and ada.email in html
    assert "+15550123" in html and "unsubscribed" in html
    assert "Your invoice is ready" in html and "Inbox — 1 unread, 0 unseen of 1" in html


@pytest.mark.django_db
def test_the_form_checks_fields_as_the_api_does_and_deleting_erases(admin_client):
    ada, _ = ada_with_history()
    form = {
        "name": "Ada",
        "email": "not an address",
        "phone": "0123",
        "locale": "en",
        "timezone": "Mars/Base",
        "channels": "{}",
        "properties": '{"plan": "team"}',
    }
    refused = admin_client.post(page_of(ada), form)
    assert refused.status_code == 200
    errors = refused.context["adminform"].form.errors
    assert set(errors) == {"email", "phone", "timezone"}
    saved = admin_client.post(
        page_of(ada), {**form, "email": "ada@example.com", "phone": "", "timezone": "UTC"}
    )
    assert saved.status_code == 302
    ada.refresh_from_db()
    assert (ada.email, ada.properties, ada.preferences) == (
        "ada@example.com",
        {"plan": "team"},
        {"channels": {"sms": False}},  # the form does not touch preferences
    )
    admin_client.post(f"/admin/recipients/recipient/{ada.pk}/delete/", {"post": "yes"})
    assert not Recipient.objects.filter(pk=ada.pk).exists()
    assert not TopicSubscription.objects.filter(recipient_id=ada.pk).exists()
    assert TriggerInstance.objects.filter(recipient=ada.pk).exists()  # runs stay


@pytest.mark.parametrize("key", ["a/b", "..", "bulk"])
def test_the_add_form_refuses_a_key_the_url_cannot_carry(admin_client, key):
    empty = {"channels": "{}", "properties": "{}"}
    refused = admin_client.post("/admin/recipients/recipient/add/", {"key": key, **empty})
    assert refused.status_code == 200
    assert set(refused.context["adminform"].form.errors) == {"key"}
    assert not Recipient.objects.filter(key=key).exists()


def test_the_recipient_page_in_a_browser(e2e, browser_page):  # noqa: F811
    from playwright.sync_api import expect

    page = browser_page
    log_in(page, e2e.base_url)
    ada, _ = ada_with_history()
    page.goto(f"{e2e.base_url}{page_of(ada)}")
    for title in ("Runs", "Delivery events", "Suppressions", "Inbox"):
        expect(page.locator(".recipient-panel h2", has_text=title)).to_be_visible()
    expect(page.locator("#id_name")).to_have_value("Ada Lovelace")
    # The page fits the window: nothing wider than the viewport.
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    shot(page, "recipient-page")


@pytest.mark.django_db
def test_the_preview_page_takes_a_sample_recipient(admin_client):
    node = {"id": "mail", "type": "email", "subject": "Hi {{ recipient.name }}", "body": "b"}
    workflow = WorkflowFactory(definition={"entry_node_id": "mail", "nodes": [node], "edges": []})
    url = f"/admin/workflows/workflow/{workflow.pk}/preview/"
    profile = '{"name": "Ada", "email": "ada@example.com"}'
    html = admin_client.post(url, {"payload": "{}", "recipient": profile}).content.decode()
    assert "Hi Ada" in html and "ada@example.com" in html
    alone = admin_client.post(url, {"payload": "{}"}).content.decode()
    assert "no recipient" in alone
    refused = admin_client.post(url, {"payload": "{}", "recipient": "[1]"}).content.decode()
    assert "The recipient must be a JSON object." in refused


@pytest.mark.django_db
def test_the_page_shows_the_push_channels_suppressions_of_the_persons_key(admin_client):
    # Issue 44: only email and phone suppressions were shown; web push and FCM suppress the key.
    ada, _ = ada_with_history()
    suppression_add(channel="webpush", recipient=ada.key, reason="manual")
    suppression_add(channel="push", recipient=ada.key, reason="complaint")
    suppression_add(channel="push", recipient=unique("someone-else"), reason="bounced")
    html = admin_client.get(page_of(ada)).content.decode()
    panel = html.split("Suppressions", 1)[1]
    assert "webpush" in panel and "manual" in panel
    assert "complaint" in panel and "bounced" not in panel


@pytest.mark.django_db
def test_the_form_sets_quiet_hours_as_the_api_checks_them(admin_client):
    ada, _ = ada_with_history()
    form = {
        "name": ada.name,
        "email": ada.email,
        "phone": ada.phone,
        "locale": "",
        "timezone": "Europe/London",
        "channels": "{}",
        "properties": "{}",
        "quiet_hours": '{"start": "22:00", "end": "25:00"}',
    }
    refused = admin_client.post(page_of(ada), form)
    assert refused.status_code == 200
    errors = refused.context["adminform"].form.errors
    assert "end: '25:00' is not a time of day" in errors["quiet_hours"][0]
    quiet = {"start": "22:00", "end": "07:00", "days": ["sat", "sun"]}
    saved = admin_client.post(page_of(ada), {**form, "quiet_hours": json.dumps(quiet)})
    assert saved.status_code == 302
    ada.refresh_from_db()
    assert ada.quiet_hours == quiet
    admin_client.post(page_of(ada), {**form, "quiet_hours": ""})
    ada.refresh_from_db()
    assert ada.quiet_hours == {}
