"""Webhooks in the admin: endpoints edited through the service's checks, the secret shown whole
only on the page after its creation or rotation, the actions (enable, disable, rotate, ping),
delete through the service; outbox events and attempts read-only, Resend. With the stack's
workers: test_webhooks_api_e2e.py."""

from __future__ import annotations

import re
import uuid

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client

from events.models import (
    DeliveryStatus,
    OutboxEvent,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)
from events.services.dispatcher import delivery_send, endpoint_disable
from events.services.endpoints import endpoint_create, endpoint_ping
from events.services.outbox import Announcement, events_record
from events.signing import secret_hint
from tests.conftest import unique
from tests.events.support import endpoint_on
from tests.factories import WorkflowFactory

pytestmark = pytest.mark.django_db

ENDPOINTS = "/admin/events/webhookendpoint/"
EVENTS = "/admin/events/outboxevent/"
ATTEMPTS = "/admin/events/webhookattempt/"


def an_endpoint(**fields) -> WebhookEndpoint:
    fields.setdefault("url", f"http://127.0.0.1:9/{unique('hook')}")
    fields.setdefault("events", ["*"])
    return endpoint_create(**fields)


def shown_secrets(html: str) -> list[str]:
    return re.findall(r'class="vTextField webhook-secret"[^>]*value="([^"]+)"', html)


def act(client: Client, url: str, action: str, *objects, **extra):
    return client.post(
        url, {"action": action, "_selected_action": [o.pk for o in objects], **extra}
    )


def form_errors(response) -> dict[str, list[str]]:
    return {
        name: list(errors) for name, errors in response.context["adminform"].form.errors.items()
    }


# --- add and change through the service --------------------------------------------------


def test_adding_an_endpoint_shows_its_secret_once_on_the_page_that_answers(admin_client):
    workflow = WorkflowFactory()
    url = f"http://127.0.0.1:9/{unique('hook')}"

    response = admin_client.post(
        f"{ENDPOINTS}add/",
        {
            "url": url,
            "events": ["trigger.completed", "trigger.failed"],
            "workflows": workflow.key,
            "description": "ops",
        },
    )

    assert response.status_code == 200  # the page itself: no redirect that could carry it
    endpoint = WebhookEndpoint.objects.get(url=url)
    assert shown_secrets(response.content.decode()) == [endpoint.secret]
    assert "no-store" in response["Cache-Control"]
    assert endpoint.events == ["trigger.completed", "trigger.failed"]
    assert endpoint.workflows == [workflow.key] and endpoint.description == "ops"
    assert endpoint.created_by == "admin:operator"
    assert LogEntry.objects.get(object_id=str(endpoint.pk)).is_addition()
    for page in (
        ENDPOINTS,
        f"{ENDPOINTS}{endpoint.pk}/change/",
        f"{ENDPOINTS}{endpoint.pk}/history/",
    ):
        html = admin_client.get(page).content.decode()
        assert endpoint.secret not in html and endpoint.secret[6:20] not in html, page
    assert (
        secret_hint(endpoint.secret)
        in admin_client.get(f"{ENDPOINTS}{endpoint.pk}/change/").content.decode()
    )


def test_the_event_checkboxes_are_laid_out_in_columns_across_the_form(admin_client):
    html = admin_client.get("/admin/events/webhookendpoint/add/").content.decode()

    # One narrow column made each label four lines tall; the grid is in base_site.html.
    assert '<div id="id_events" class="nf-choices">' in html
    assert "div.nf-choices { display: grid;" in html


def test_the_add_form_shows_the_services_messages_on_their_fields(admin_client):
    response = admin_client.post(
        f"{ENDPOINTS}add/",
        {"url": "ftp://127.0.0.1/hook", "workflows": "nowhere", "description": ""},
    )

    assert response.status_code == 200
    errors = form_errors(response)
    assert "http or https" in errors["url"][0]
    assert "at least one event type" in errors["events"][0]
    assert "no workflow with the key(s) nowhere" in errors["workflows"][0]
    assert not WebhookEndpoint.objects.exists()


def test_the_add_form_refuses_a_non_public_address_as_the_api_does(admin_client, settings):
    settings.NOTIFLOW_WEBHOOK_ALLOW_PRIVATE = False
    response = admin_client.post(f"{ENDPOINTS}add/", {"url": "http://10.0.0.1/", "events": ["*"]})
    assert "non-public address" in form_errors(response)["url"][0]
    assert not WebhookEndpoint.objects.exists()


def test_changing_an_endpoint_goes_through_the_service(admin_client):
    endpoint = an_endpoint(description="before")
    workflow = WorkflowFactory()
    page = admin_client.get(f"{ENDPOINTS}{endpoint.pk}/change/")
    form = page.context["adminform"].form
    assert form.initial["url"] == endpoint.url and form.initial["events"] == ["*"]

    response = admin_client.post(
        f"{ENDPOINTS}{endpoint.pk}/change/",
        {
            "url": endpoint.url,
            "events": ["trigger.failed"],
            "workflows": workflow.key,
            "description": "after",
        },
    )

    assert response.status_code == 302, form_errors(response)
    changed = WebhookEndpoint.objects.get(pk=endpoint.pk)
    assert (changed.events, changed.workflows, changed.description) == (
        ["trigger.failed"],
        [workflow.key],
        "after",
    )
    assert changed.secret == endpoint.secret
    entry = LogEntry.objects.filter(object_id=str(endpoint.pk)).latest("action_time")
    assert entry.is_change() and "events" in entry.get_change_message()


def test_a_change_the_service_refuses_shows_its_message_and_changes_nothing(admin_client):
    endpoint = an_endpoint()
    response = admin_client.post(
        f"{ENDPOINTS}{endpoint.pk}/change/",
        {"url": endpoint.url, "events": ["*"], "workflows": "nowhere, gone"},
    )
    assert response.status_code == 200
    assert "no workflow with the key(s) gone, nowhere" in form_errors(response)["workflows"][0]
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).workflows == []


def test_an_unchanged_url_that_fails_the_rule_now_does_not_block_an_edit(admin_client, settings):
    endpoint = an_endpoint()
    settings.NOTIFLOW_WEBHOOK_ALLOW_PRIVATE = False
    response = admin_client.post(
        f"{ENDPOINTS}{endpoint.pk}/change/",
        {"url": endpoint.url, "events": ["*"], "description": "moving"},
    )
    assert response.status_code == 302
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).description == "moving"


def test_the_list_shows_url_events_workflows_state_and_failures(admin_client):
    workflow = WorkflowFactory()
    one = an_endpoint(events=["trigger.completed", "trigger.failed"], workflows=[workflow.key])
    two = an_endpoint()
    endpoint_disable(two.pk, reason="test")

    response = admin_client.get(ENDPOINTS)

    html = response.content.decode()
    assert one.url in html and two.url in html
    assert "trigger.completed, trigger.failed" in html and workflow.key in html
    rows = response.context["cl"].result_list
    assert {e.pk: e.enabled for e in rows} == {one.pk: True, two.pk: False}
    assert one.secret not in html and two.secret not in html


# --- actions -----------------------------------------------------------------------------


def test_disable_then_enable_delivers_what_was_kept(admin_client):
    endpoint = an_endpoint()

    act(admin_client, ENDPOINTS, "disable_selected", endpoint)
    disabled = WebhookEndpoint.objects.get(pk=endpoint.pk)
    assert not disabled.enabled and "admin:operator" in disabled.disabled_reason
    kept = WebhookDelivery.objects.get(event=endpoint_ping(disabled))
    assert kept.nudged_at is None

    response = act(admin_client, ENDPOINTS, "enable_selected", endpoint)

    assert response.status_code == 302
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).enabled
    kept.refresh_from_db()
    assert kept.status == DeliveryStatus.PENDING and kept.nudged_at is not None
    assert kept.attempts == 0
    messages = [str(m) for m in admin_client.get(ENDPOINTS).context["messages"]]
    assert any("1 kept event(s) on their way" in m for m in messages), messages


def test_rotating_shows_the_new_secrets_once(admin_client):
    one, two = an_endpoint(), an_endpoint()

    response = act(admin_client, ENDPOINTS, "rotate_secret_selected", one, two)

    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    new = {e.pk: e.secret for e in WebhookEndpoint.objects.filter(pk__in=[one.pk, two.pk])}
    assert sorted(shown_secrets(response.content.decode())) == sorted(new.values())
    assert new[one.pk] != one.secret and new[two.pk] != two.secret
    assert LogEntry.objects.filter(change_message="Secret rotated.").count() == 2
    assert new[one.pk] not in admin_client.get(f"{ENDPOINTS}{one.pk}/change/").content.decode()


def test_send_test_ping_makes_a_ping_event_for_each_selected_endpoint(admin_client):
    one, two, left = an_endpoint(), an_endpoint(), an_endpoint()

    act(admin_client, ENDPOINTS, "ping_selected", one, two)

    pings = WebhookDelivery.objects.filter(event__type="ping")
    assert sorted(str(d.endpoint_id) for d in pings) == sorted([str(one.pk), str(two.pk)])
    assert not pings.filter(endpoint=left).exists()


def test_deleting_goes_through_the_service_and_keeps_the_attempt_log(admin_client, receiver):
    endpoint, _ = endpoint_on(receiver)
    event = endpoint_ping(endpoint)
    delivery_send(WebhookDelivery.objects.get(event=event).pk, worker_id="test")

    confirm = admin_client.get(f"{ENDPOINTS}{endpoint.pk}/delete/")
    assert confirm.status_code == 200
    assert "Deliveries (pending and past): 1" in confirm.content.decode()
    response = admin_client.post(f"{ENDPOINTS}{endpoint.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not WebhookEndpoint.objects.filter(pk=endpoint.pk).exists()
    assert not WebhookDelivery.objects.filter(endpoint_id=endpoint.pk).exists()
    assert WebhookAttempt.objects.filter(endpoint_id=endpoint.pk).count() == 1


# --- outbox events: read-only, with deliveries, Resend ------------------------------------


def a_trigger_event(endpoint: WebhookEndpoint) -> OutboxEvent:
    trigger_id = uuid.uuid4()
    events_record(
        [
            Announcement(
                type="trigger.completed",
                trigger_id=trigger_id,
                workflow_key="welcome",
                data={"trigger": {"id": str(trigger_id), "status": "completed"}},
            )
        ]
    )
    return OutboxEvent.objects.get(trigger_id=trigger_id)


def test_events_list_and_search_by_trigger_or_event_id(admin_client):
    endpoint = an_endpoint()
    event, other = a_trigger_event(endpoint), a_trigger_event(endpoint)

    html = admin_client.get(EVENTS).content.decode()
    assert "notiflow.trigger.completed" in html and "welcome" in html

    for term in (event.trigger_id, event.event_id, f"  {event.trigger_id} "):
        found = admin_client.get(EVENTS, {"q": str(term)}).context["cl"].result_list
        assert [e.pk for e in found] == [event.pk], term
    listed = [e.pk for e in admin_client.get(EVENTS).context["cl"].result_list]
    assert listed[:2] == [other.pk, event.pk]  # newest first
    for term in ("not-a-uuid", str(uuid.uuid4())):
        response = admin_client.get(EVENTS, {"q": term})
        assert response.status_code == 200 and list(response.context["cl"].result_list) == []


def test_an_events_page_shows_its_data_and_deliveries(admin_client, receiver):
    delivered, _ = endpoint_on(receiver)
    failing, _ = endpoint_on(receiver, "fail")
    event = a_trigger_event(delivered)
    for delivery in WebhookDelivery.objects.filter(event=event):
        delivery_send(delivery.pk, worker_id="test")

    html = admin_client.get(f"{EVENTS}{event.pk}/change/").content.decode()

    assert str(event.event_id) in html and "notiflow.trigger.completed" in html
    assert "&quot;status&quot;: &quot;completed&quot;" in html  # the data, as JSON
    assert delivered.url in html and failing.url in html
    assert "<td>delivered</td>" in html and "<td>pending</td>" in html
    assert "HTTP 500" in html


def test_events_and_attempts_cannot_be_added_changed_or_deleted(admin_client, receiver):
    endpoint, _ = endpoint_on(receiver)
    event = endpoint_ping(endpoint)
    delivery_send(WebhookDelivery.objects.get(event=event).pk, worker_id="test")
    attempt = WebhookAttempt.objects.get(event_id=event.event_id)

    for root, row in ((EVENTS, event), (ATTEMPTS, attempt)):
        assert admin_client.get(f"{root}add/").status_code == 403, root
        assert admin_client.get(f"{root}{row.pk}/delete/").status_code == 403, root
        assert admin_client.post(f"{root}{row.pk}/change/", {}).status_code == 403, root
        page = admin_client.get(f"{root}{row.pk}/change/")
        assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
        form = admin_client.get(root).context["action_form"]
        actions = [name for name, _ in form.fields["action"].choices] if form else []
        assert "delete_selected" not in actions, root
    assert OutboxEvent.objects.filter(pk=event.pk).exists()
    assert WebhookAttempt.objects.filter(pk=attempt.pk).exists()


def test_resend_makes_each_delivery_pending_again_with_attempts_afresh(admin_client, receiver):
    endpoint, path = endpoint_on(receiver)
    event = endpoint_ping(endpoint)
    delivery = WebhookDelivery.objects.get(event=event)
    assert delivery_send(delivery.pk, worker_id="test") == DeliveryStatus.DELIVERED

    response = act(admin_client, EVENTS, "resend_selected", event)

    assert response.status_code == 302
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING and delivery.attempts == 0
    assert delivery.delivered_at is None and delivery.nudged_at is not None
    assert LogEntry.objects.get(object_id=str(event.pk)).get_change_message() == "Resent."
    assert delivery_send(delivery.pk, worker_id="test") == DeliveryStatus.DELIVERED
    first, again = receiver.received(path)
    assert first.webhook_id == again.webhook_id == str(event.event_id)


def test_attempts_list_and_search_by_endpoint(admin_client, receiver):
    one, _ = endpoint_on(receiver)
    two, _ = endpoint_on(receiver, "fail")
    for endpoint in (one, two):
        event = endpoint_ping(endpoint)
        delivery_send(WebhookDelivery.objects.get(event=event).pk, worker_id="test")

    html = admin_client.get(ATTEMPTS).content.decode()
    assert "HTTP 200" in html and "HTTP 500" in html and "notiflow.ping" in html

    found = admin_client.get(ATTEMPTS, {"q": str(two.pk)}).context["cl"].result_list
    assert [a.endpoint_id for a in found] == [two.pk]
    endpoint_page = admin_client.get(f"{ENDPOINTS}{two.pk}/change/").content.decode()
    assert f"{ATTEMPTS}?q={two.pk}" in endpoint_page
