"""What a worker can run, from one home (workers/channels/__init__.py): the registry shows it, and the
engine fails at once a node this worker cannot run (`no_handler_registered: ...`)."""

from __future__ import annotations

import pytest

from tests.factories import chain, email_node, sms_node
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workers.channels import node_unrunnable, worker_capabilities
from workers.models import SendLedger, StepExecutionLog
from workers.services.engine import step_execute

pytestmark = pytest.mark.django_db

NO_SMS = "no_handler_registered: node 'text' is an sms node and this worker has no SMS provider"


@pytest.mark.parametrize("no_provider", ["none", "", "None"])
def test_a_worker_without_an_sms_provider_cannot_run_sms_nodes(settings, no_provider):
    settings.NOTIFLOW_SMS_BACKEND = no_provider
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    capabilities = worker_capabilities()
    assert capabilities.node_types == [
        "email",
        "slack",
        "teams",
        "inapp",
        "delay",
        "window",
        "throttle",
        "digest",
        "wait_event",
        "fetch",
    ]
    assert capabilities.providers == {"email": "smtp", "slack": "slack", "teams": "teams"}
    assert node_unrunnable(sms_node("text")) == NO_SMS
    assert node_unrunnable(email_node("mail")) is None


def test_providers_are_named_by_their_backend(settings):
    settings.NOTIFLOW_SMS_BACKEND = "twilio"
    settings.EMAIL_BACKEND = "myproject.mail.SesBackend"
    capabilities = worker_capabilities()
    assert capabilities.node_types == [
        "email",
        "sms",
        "slack",
        "teams",
        "inapp",
        "delay",
        "window",
        "throttle",
        "digest",
        "wait_event",
        "fetch",
    ]
    # The chat channels' one provider each is the service itself (workers/providers).
    assert capabilities.providers == {
        "email": "myproject.mail.SesBackend",
        "sms": "twilio",
        "slack": "slack",
        "teams": "teams",
    }


def test_a_node_type_the_code_does_not_know_is_not_runnable():
    assert node_unrunnable({"id": "page", "type": "pager"}) == (
        "no_handler_registered: node 'page' has type 'pager', which this worker's code does not know"
    )


def test_an_sms_node_on_a_worker_without_an_sms_provider_fails_at_once(settings):
    settings.NOTIFLOW_SMS_BACKEND = "none"
    trigger = due_trigger(chain(sms_node("text")), payload={"phone": "+15550100", "name": "Kim"})

    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "failed"

    trigger = TriggerInstance.objects.get(pk=trigger.pk)
    assert trigger.last_error == NO_SMS
    assert trigger.attempts == 1  # one attempt, no retry loop
    event = trigger.events.order_by("-id").first()
    assert event is not None and event.to_status == "failed" and NO_SMS in event.reason
    (step,) = StepExecutionLog.objects.filter(trigger=trigger)
    assert not step.success and step.error == NO_SMS
    # The claim opened the send slot; it is given back, nothing was sent.
    assert SendLedger.objects.get(trigger=trigger, node_id="text").send_count == 0
