"""Preferences in the engine (docs/design/recipients.md, "Preferences"): a send of a run for a recipient
whose channel they turned off is skipped, not failed; the step log and `message.skipped` name the
preference that decided, and the run goes on. A required workflow sends anyway; a run without a
recipient is not asked; templates of a run for a recipient see `preferences_url`."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from events import catalog
from events.models import OutboxEvent, WebhookEndpoint
from events.services.endpoints import endpoint_create
from recipients.models import Category, Recipient
from recipients.preferences import preferences_token_read
from tests.factories import chain, email_node, sms_node
from tests.workers.helpers import due_trigger, node_output
from triggers.models import TERMINAL_STATUSES, TriggerEvent, TriggerInstance
from workers.models import SendLedger, StepExecutionLog
from workers.services.engine import step_execute

pytestmark = pytest.mark.django_db

PAYLOAD = {"email": "ada@example.com", "phone": "+15550100", "name": "Ada"}


@pytest.fixture(autouse=True)
def locmem(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.NOTIFLOW_PUBLIC_URL = "https://notify.example.com"


@pytest.fixture
def subscriber():
    """An endpoint for every event, so that the outbox keeps them (rolled back after)."""
    WebhookEndpoint.objects.all().delete()
    return endpoint_create(url="http://127.0.0.1:9/hook", events=["*"])


def run_for(recipient: str, definition: dict) -> TriggerInstance:
    """Step a run of `definition` for `recipient` in-process until it ends."""
    trigger = due_trigger(definition, payload=PAYLOAD, recipient=recipient)
    for _ in range(len(definition["nodes"]) + 1):
        step_execute(trigger_id=str(trigger.pk), worker_id="w")
        trigger.refresh_from_db()
        if trigger.status in TERMINAL_STATUSES:
            return trigger
        earlier = timezone.now() - timedelta(hours=1)
        TriggerInstance.objects.filter(pk=trigger.pk).update(available_at=earlier)
    raise AssertionError(f"run did not end: {trigger.status}")


def in_category(slug: str, *nodes: dict, **fields) -> dict:
    return {**chain(*nodes), "preference_category": slug, **fields}


def test_email_turned_off_for_the_category_skips_the_email_and_the_run_goes_on(subscriber):
    Category.objects.create(slug="comments")
    Recipient.objects.create(key="ada", preferences={"categories": {"comments": {"email": False}}})

    trigger = run_for("ada", in_category("comments", email_node("mail"), sms_node("text")))

    assert trigger.status == "completed" and trigger.last_error == ""
    assert mail.outbox == []
    assert trigger.vars["sms_text"]["to"] == "+15550100"  # the SMS went
    step = StepExecutionLog.objects.get(trigger=trigger, node_id="mail")
    assert step.success and step.error == ""
    assert node_output(step) == {
        "skipped": "preference: categories.comments.email is off",
        "rule": "preference",
        "preference": "categories.comments.email",
        "to": "ada@example.com",
    }
    assert SendLedger.objects.get(trigger=trigger, node_id="mail").send_count == 0
    reasons = TriggerEvent.objects.filter(trigger=trigger).values_list("reason", flat=True)
    assert "mail skipped (preference: categories.comments.email is off); next text" in reasons
    skipped = OutboxEvent.objects.get(type=catalog.MESSAGE_SKIPPED).data["message"]
    assert (skipped["node_id"], skipped["channel"], skipped["rule"], skipped["preference"]) == (
        "mail",
        "email",
        "preference",
        "categories.comments.email",
    )


def test_the_operators_default_decides_for_a_person_who_said_nothing():
    Category.objects.create(slug="digest", defaults={"sms": False})
    Recipient.objects.create(key="bo")

    trigger = run_for("bo", in_category("digest", sms_node("text"), email_node("mail")))

    assert trigger.status == "completed"
    assert trigger.vars["sms_text"]["preference"] == "defaults.digest.sms"
    assert len(mail.outbox) == 1


def test_a_required_workflow_sends_whatever_the_person_turned_off():
    Category.objects.create(slug="account")
    Recipient.objects.create(
        key="cy", preferences={"channels": {"email": False}, "categories": {"account": False}}
    )

    trigger = run_for("cy", in_category("account", email_node("mail"), required=True))

    assert trigger.status == "completed"
    assert "skipped" not in trigger.vars["email_mail"]
    assert [m.to for m in mail.outbox] == [["ada@example.com"]]


def test_the_workflow_switch_wins_over_the_channel():
    Recipient.objects.create(key="di", preferences={"channels": {"email": False}})
    definition = chain(email_node("mail"))
    trigger = due_trigger(definition, payload=PAYLOAD, recipient="di")
    Recipient.objects.filter(key="di").update(
        preferences={"channels": {"email": False}, "workflows": {trigger.workflow.key: True}}
    )

    step_execute(trigger_id=str(trigger.pk), worker_id="w")

    trigger.refresh_from_db()
    assert trigger.status == "completed" and len(mail.outbox) == 1


def test_a_run_for_a_recipient_links_to_their_preference_page_and_no_step_log_keeps_it():
    Recipient.objects.create(key="ed")
    node = email_node("mail", body="Manage your email: {{ preferences_url }}")

    trigger = run_for("ed", chain(node))

    assert trigger.status == "completed"
    (message,) = mail.outbox
    link = message.body.removeprefix("Manage your email: ")
    prefix = "https://notify.example.com/deliveries/preferences/"
    assert link.startswith(prefix) and link.endswith("/")
    assert preferences_token_read(link.removeprefix(prefix)[:-1]) == "ed"
    step = StepExecutionLog.objects.get(trigger=trigger, node_id="mail")
    assert "preferences_url" not in step.input


def test_a_run_without_a_recipient_is_not_asked_and_fails_saying_it_has_none():
    trigger = run_for("", chain(email_node("mail", body="{{ preferences_url }}")))

    assert trigger.status == "failed"
    assert "'preferences_url' is undefined: the run has no recipient" in trigger.last_error


def test_without_a_public_url_a_template_naming_the_link_fails_naming_the_setting(settings):
    settings.NOTIFLOW_PUBLIC_URL = ""
    Recipient.objects.create(key="fi")

    trigger = run_for("fi", chain(email_node("mail", body="Manage: {{ preferences_url }}")))

    assert trigger.status == "failed"
    assert "'preferences_url' is undefined: the service's public address is not set " in (
        trigger.last_error
    )
    assert "(NOTIFLOW_PUBLIC_URL)" in trigger.last_error
    assert mail.outbox == []
