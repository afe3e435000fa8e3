"""A run for a recipient, in-process (docs/design/recipients.md, "Recipients"): templates see
`recipient.*`; an email node without `to` sends to recipient.email, an SMS node to
recipient.phone; a missing address fails the node permanently naming the field, or skips it with
`skip_missing` (the run goes on, the output and `message.skipped` say why); a window without a
zone opens in recipient.timezone; a step log keeps only the profile fields its templates read."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core import mail
from django.test import override_settings

from events.models import OutboxEvent, WebhookEndpoint
from events.services.endpoints import endpoint_create
from recipients.models import Recipient
from recipients.services import recipient_erase
from tests.conftest import unique
from tests.factories import chain, email_node, sms_node, window_node
from tests.workers.helpers import due_trigger, node_output
from triggers.models import TriggerInstance, TriggerStatus
from workers.models import SendLedger, StepExecutionLog
from workers.services.engine import step_execute
from workflows.nodes import NODE_TYPES
from workflows.preview import workflow_preview
from workflows.semantics import execution_context

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("locmem_email")]


@pytest.fixture
def locmem_email():
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        yield


def person(**fields) -> Recipient:
    return Recipient.objects.create(key=unique("user"), **fields)


def without_to(node: dict) -> dict:
    return {k: v for k, v in node.items() if k != "to"}


GREETING = email_node(
    "mail", subject="Hi {{ recipient.name }}", body="Plan: {{ recipient.properties.plan }}"
)


def step(trigger):
    return step_execute(trigger_id=str(trigger.pk), worker_id="w")


def test_an_email_without_to_goes_to_the_recipient_and_templates_read_the_profile():
    ada = person(email="ada@example.com", name="Ada", properties={"plan": "pro"})
    trigger = due_trigger(chain(without_to(GREETING)), payload={}, recipient=ada.key)
    assert step(trigger) == TriggerStatus.COMPLETED
    (message,) = mail.outbox
    assert message.to == ["ada@example.com"]
    assert (message.subject, message.body) == ("Hi Ada", "Plan: pro")
    log = StepExecutionLog.objects.get(trigger=trigger)
    # Only what the templates read of the profile is kept in the step log.
    assert log.input["recipient"] == {"name": "Ada", "properties": {"plan": "pro"}}


def test_an_sms_without_to_goes_to_the_recipients_phone():
    bo = person(phone="+15550123")
    trigger = due_trigger(
        chain(without_to(sms_node("text"))), payload={"name": "Bo"}, recipient=bo.key
    )
    assert step(trigger) == TriggerStatus.COMPLETED
    assert StepExecutionLog.objects.get(trigger=trigger).output["to"] == "+15550123"


def test_a_given_to_wins_over_the_recipients_address():
    ada = person(email="ada@example.com")
    node = email_node("mail", to="ops@example.com")
    trigger = due_trigger(chain(node), payload={"name": "x"}, recipient=ada.key)
    step(trigger)
    assert mail.outbox[0].to == ["ops@example.com"]


def test_a_recipient_without_the_address_fails_the_node_permanently_naming_the_field():
    no_email = person(phone="+15550123")
    trigger = due_trigger(
        chain(without_to(email_node("mail"))), payload={"name": "x"}, recipient=no_email.key
    )
    assert step(trigger) == TriggerStatus.FAILED
    trigger.refresh_from_db()
    assert "recipient.email" in trigger.last_error and no_email.key in trigger.last_error
    assert trigger.attempts == 1  # permanent: not retried
    assert mail.outbox == []
    # The slot the claim opened was given back: nothing counts as sent.
    assert not SendLedger.objects.filter(trigger=trigger, status="sent").exists()


def test_a_run_without_a_recipient_and_no_to_fails_naming_recipient():
    trigger = due_trigger(chain(without_to(email_node("mail"))), payload={"name": "x"})
    assert step(trigger) == TriggerStatus.FAILED
    trigger.refresh_from_db()
    assert "no recipient" in trigger.last_error


@pytest.fixture
def subscriber():
    """An endpoint for every event, so events are written (the test's transaction rolls it
    back), others set aside."""
    WebhookEndpoint.objects.all().delete()
    return endpoint_create(url="http://127.0.0.1:9/hook", events=["*"])


def test_skip_missing_skips_the_node_and_the_run_goes_on(subscriber):
    no_email = person(phone="+15550123")
    definition = chain(
        without_to(email_node("mail", skip_missing=True)), without_to(sms_node("text"))
    )
    trigger = due_trigger(definition, payload={"name": "x"}, recipient=no_email.key)
    assert step(trigger) == TriggerStatus.ENQUEUED
    trigger.refresh_from_db()
    assert trigger.current_node_id == "text"
    output = trigger.vars["email_mail"]
    assert output["missing"] == "recipient.email"
    assert "has no email" in output["skipped"]
    skipped = OutboxEvent.objects.get(trigger_id=trigger.pk, type="message.skipped")
    assert skipped.data["message"]["missing"] == "recipient.email"
    assert mail.outbox == []


def test_recipient_erased_skips_every_send_of_the_run_even_one_with_its_own_to(subscriber):
    gone = person(email="gone@example.com")
    definition = chain(email_node("mail", to="{{ payload.email }}"), without_to(sms_node("text")))
    payload = {"email": "gone@example.com", "name": "Gone"}
    trigger = due_trigger(definition, payload=payload, recipient=gone.key)
    recipient_erase(key=gone.key)

    assert step(trigger) == TriggerStatus.ENQUEUED
    # The next step due at once (the database's now() stands still in the test's transaction).
    TriggerInstance.objects.filter(pk=trigger.pk).update(
        available_at=datetime(2000, 1, 1, tzinfo=UTC)
    )
    assert step(trigger) == TriggerStatus.COMPLETED
    assert mail.outbox == []
    logs = StepExecutionLog.objects.filter(trigger=trigger).order_by("node_id")
    assert [(log.node_id, log.success, node_output(log)) for log in logs] == [
        (node, True, {"skipped": "the recipient was erased", "rule": "recipient_erased"})
        for node in ("mail", "text")
    ]
    skipped = OutboxEvent.objects.filter(trigger_id=trigger.pk, type="message.skipped")
    assert [event.data["message"]["rule"] for event in skipped] == ["recipient_erased"] * 2
    assert SendLedger.objects.get(trigger=trigger, node_id="mail").send_count == 0


def test_a_window_without_a_zone_opens_in_the_recipients_zone():
    node = {
        k: v for k, v in window_node("hours", days=None).items() if k not in ("timezone", "days")
    }
    # 08:30 UTC is 17:30 in Tokyo (open: 09-18) and 09:30 in Paris in winter (open too); at
    # 00:30 UTC it is 09:30 in Tokyo (open) and 01:30 in Paris (closed).
    now = datetime(2026, 1, 14, 0, 30, tzinfo=UTC)

    def context(recipient):
        return execution_context(
            payload={}, vars={}, trigger={}, workflow={}, now=now, recipient=recipient
        )

    tokyo = NODE_TYPES["window"].wait(node, context({"id": "u", "timezone": "Asia/Tokyo"}), now)
    assert tokyo.output["timezone"] == "Asia/Tokyo" and tokyo.output["open"] is True
    paris = NODE_TYPES["window"].wait(node, context({"id": "u", "timezone": "Europe/Paris"}), now)
    assert paris.output["timezone"] == "Europe/Paris" and paris.output["open"] is False
    with override_settings(NOTIFLOW_DEFAULT_TIMEZONE="UTC"):
        nobody = NODE_TYPES["window"].wait(node, context({"id": "u", "timezone": ""}), now)
        assert nobody.output["timezone"] == "UTC"
        fixed = NODE_TYPES["window"].wait(
            {**node, "timezone": "Asia/Tokyo"},
            context({"id": "u", "timezone": "Europe/Paris"}),
            now,
        )
        assert fixed.output["timezone"] == "Asia/Tokyo"  # the node's own zone wins


def test_the_preview_takes_an_optional_recipient():
    definition = chain(without_to(GREETING), without_to(sms_node("text", skip_missing=True)))
    workflow = {"key": "w", "name": "W", "version": 1}
    ada = {
        "id": "u1",
        "email": "ada@example.com",
        "phone": "",
        "name": "Ada",
        "properties": {"plan": "pro"},
    }
    result = workflow_preview(
        definition=definition, payload={"name": "x"}, workflow=workflow, recipient=ada
    )
    mail_preview, text_preview = result.nodes
    assert mail_preview.ok and mail_preview.value("to") == "ada@example.com"
    assert mail_preview.value("subject") == "Hi Ada"
    assert text_preview.ok and "has no phone" in text_preview.note
    alone = workflow_preview(definition=definition, payload={"name": "x"}, workflow=workflow)
    assert "recipient" in alone.nodes[0].error


def test_the_preview_links_a_recipients_preference_page_or_says_which_setting_is_missing(
    settings,
):
    # Issue 44: with a recipient given, the preview said "the run has no recipient".
    definition = chain(without_to(email_node("mail", body="Manage: {{ preferences_url }}")))
    workflow = {"key": "w", "name": "W", "version": 1}
    ada = {"id": "u1", "email": "ada@example.com", "name": "Ada", "properties": {}}
    settings.NOTIFLOW_PUBLIC_URL = "https://notify.example.com"

    [linked] = workflow_preview(
        definition=definition, payload={"name": "x"}, workflow=workflow, recipient=ada
    ).nodes
    assert linked.ok, linked.error
    assert "Manage: https://notify.example.com/deliveries/preferences/" in linked.value("body")

    settings.NOTIFLOW_PUBLIC_URL = ""
    [unset] = workflow_preview(
        definition=definition, payload={"name": "x"}, workflow=workflow, recipient=ada
    ).nodes
    assert "NOTIFLOW_PUBLIC_URL" in unset.error and "no recipient" not in unset.error
