"""A person's side of "why didn't they get it?" (docs/design/deliveries.md, "Explaining a run"):
`GET /api/recipients/<id>/explain/?workflow=` dry-runs each sending node of the workflow's
current version for them now, with the send path's own rules and sentences (preference,
address, suppression, send cap, a closed window first) and creating nothing;
`GET /api/recipients/<id>/timeline/` lists their runs newest first, each message with the
decision its step recorded and its delivery state."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from deliveries.models import DeliveryEvent
from deliveries.suppression import suppression_add
from recipients.models import Category, Recipient
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node, sms_node, window_node
from tests.workers.helpers import due_trigger
from triggers.api_keys import api_key_create
from triggers.models import TriggerInstance
from workers.models import SendLedger
from workers.services.caps import send_caps_take
from workers.services.engine import step_execute

pytestmark = [pytest.mark.django_db]


@pytest.fixture(autouse=True)
def locmem(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture
def api() -> APIClient:
    _, key = api_key_create(name=unique("explain"))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def without_to(node: dict) -> dict:
    return {k: v for k, v in node.items() if k != "to"}


def ann(**fields: Any) -> Recipient:
    defaults = {"name": "Ann", "email": f"{uuid.uuid4().hex[:10]}@example.com"}
    return Recipient.objects.create(key=unique("ann"), **{**defaults, **fields})


def dry_run(api: APIClient, person: Recipient, workflow: Any) -> list[dict[str, Any]]:
    response = api.get(f"/api/recipients/{person.key}/explain/?workflow={workflow.key}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["recipient"], body["workflow"]) == (person.key, workflow.key)
    return body["nodes"]


def nothing_written() -> tuple[int, int]:
    return TriggerInstance.objects.count(), SendLedger.objects.count()


def test_a_send_that_would_go_names_channel_address_and_provider(api):
    person = ann()
    workflow = WorkflowFactory(definition=chain(without_to(email_node("mail"))))
    before = nothing_written()

    (mail,) = dry_run(api, person, workflow)

    assert (mail["node"], mail["type"], mail["channel"], mail["decision"]) == (
        "mail",
        "email",
        "email",
        "sent",
    )
    provider = mail["evidence"]["provider"]
    assert mail["reason"] == f"Email would be sent to {person.email} through {provider}"
    assert mail["evidence"]["to"] == person.email
    assert nothing_written() == before


def test_a_suppression_and_a_preference_say_why_they_skip(api):
    Category.objects.create(slug="comments")
    person = ann(preferences={"categories": {"comments": {"sms": False}}}, phone="+15550100")
    suppression_add(channel="email", recipient=person.email, reason="unsubscribed", source="link")
    definition = {
        **chain(without_to(email_node("mail")), without_to(sms_node("text"))),
        "preference_category": "comments",
    }
    workflow = WorkflowFactory(definition=definition)

    mail, text = dry_run(api, person, workflow)

    assert (mail["decision"], mail["rule"]) == ("skipped", "opt-out")
    assert mail["reason"].startswith(f"Email skipped: {person.email} is on the suppression list")
    assert mail["evidence"]["suppressions"][0]["source"] == "link"
    assert (text["decision"], text["reason"]) == (
        "skipped",
        "Text message (SMS) skipped: Ann turned off SMS for comments (categories.comments.sms)",
    )


def test_a_missing_address_skips_or_fails_as_the_node_says(api):
    person = ann(email="")
    workflow = WorkflowFactory(
        definition=chain(
            without_to(email_node("skips", skip_missing=True)), without_to(email_node("fails"))
        )
    )

    skips, fails = dry_run(api, person, workflow)

    assert (skips["decision"], skips["reason"]) == (
        "skipped",
        "Email skipped: Ann has no address for it (recipient.email is empty)",
    )
    assert (fails["decision"], fails["rule"]) == ("failed", "missing_address")


def test_an_address_from_the_payload_is_unknown_until_triggered(api):
    workflow = WorkflowFactory(definition=chain(email_node("mail")))  # to: {{ payload.email }}

    (mail,) = dry_run(api, ann(), workflow)

    assert mail["decision"] == "sent" and mail["evidence"]["to"] is None
    assert mail["reason"].startswith(
        "Email would be sent to the address the trigger's payload gives (to: {{ payload.email }})"
    )


def test_a_reached_send_cap_would_fail_and_asking_counts_nothing(api, settings):
    settings.NOTIFLOW_SEND_CAP_PER_RECIPIENT = 1
    person = ann()
    workflow = WorkflowFactory(definition=chain(without_to(email_node("mail"))))
    assert dry_run(api, person, workflow)[0]["decision"] == "sent"
    assert dry_run(api, person, workflow)[0]["decision"] == "sent"  # asking took no slot
    send_caps_take(channel="email", recipients=[person.email], created_by="", at=timezone.now())

    (mail,) = dry_run(api, person, workflow)

    assert (mail["decision"], mail["rule"]) == ("failed", "send_cap")
    assert mail["reason"] == (
        f"Email would fail: send cap: recipient {person.email} reached 1 email messages this hour"
    )


def test_a_closed_window_on_the_way_defers_the_send_to_its_opening(api):
    workflow = WorkflowFactory(
        definition=chain(window_node(timezone="Europe/Berlin"), without_to(email_node("mail")))
    )
    friday_evening = datetime(2026, 3, 27, 19, 0, tzinfo=UTC)
    person = ann()

    with mock.patch("deliveries.explain_api.timezone.now", return_value=friday_evening):
        (mail,) = dry_run(api, person, workflow)

    assert (mail["decision"], mail["rule"]) == ("deferred", "window")
    assert mail["reason"].startswith(f"Email would be sent to {person.email}")
    assert mail["reason"].endswith(
        ", first held until send window 'hours' (09:00-18:00 mon-fri, Europe/Berlin) opens at "
        "2026-03-30 09:00 +0200"
    )


def test_the_dry_run_is_strict_and_names_what_it_cannot_find(api):
    person, workflow = ann(), WorkflowFactory()
    base = f"/api/recipients/{person.key}/explain/"

    assert api.get(base).status_code == 400
    assert "workflow" in api.get(base).json()["errors"]
    unknown = api.get(f"{base}?workflow={workflow.key}&channel=email")
    assert unknown.status_code == 400 and "channel" in unknown.json()["errors"]
    assert api.get(f"{base}?workflow=nope").status_code == 404
    assert api.get(f"/api/recipients/nobody/explain/?workflow={workflow.key}").status_code == 404


def test_the_timeline_lists_the_persons_runs_newest_first_with_decisions_and_states(api):
    Category.objects.create(slug="news")
    person = ann(preferences={"channels": {"sms": False}}, phone="+15550100")
    definition = {
        **chain(without_to(email_node("mail")), without_to(sms_node("text"))),
        "preference_category": "news",
    }
    older = due_trigger(definition, payload={}, recipient=person.key)
    for _ in range(2):
        TriggerInstance.objects.filter(pk=older.pk).update(
            available_at=timezone.now() - timedelta(days=1)
        )
        step_execute(trigger_id=str(older.pk), worker_id="w")
    DeliveryEvent.objects.create(
        trigger_id=older.pk,
        node_id="mail",
        channel="email",
        provider="smtp",
        event="delivered",
        recipient=person.email,
        dedupe_key=uuid.uuid4().hex,
        occurred_at=timezone.now(),
    )
    newer = due_trigger(chain(email_node("mail")), payload={"email": "x@example.com"})
    TriggerInstance.objects.filter(pk=newer.pk).update(
        recipient=person.key, created_at=timezone.now() + timedelta(seconds=1)
    )

    response = api.get(f"/api/recipients/{person.key}/timeline/")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["count"] == 2
    first, second = body["results"]
    assert (first["trigger"], first["status"], first["messages"]) == (str(newer.pk), "enqueued", [])
    assert second["trigger"] == str(older.pk) and second["status"] == "completed"
    mail, text = second["messages"]
    assert (mail["node"], mail["decision"], mail["state"]) == ("mail", "sent", "delivered")
    assert (text["node"], text["decision"], text["rule"], text["state"]) == (
        "text",
        "skipped",
        "preference",
        "",
    )
    assert text["reason"] == "Text message (SMS) skipped: Ann turned off SMS (channels.sms)"

    later = (timezone.now() + timedelta(days=1)).isoformat()
    assert api.get(f"/api/recipients/{person.key}/timeline/", {"since": later}).json()["count"] == 0
    assert api.get(f"/api/recipients/{person.key}/timeline/?since=yesterday").status_code == 400
    assert api.get(f"/api/recipients/{person.key}/timeline/?until=x").status_code == 400
    assert api.get("/api/recipients/nobody/timeline/").status_code == 404
