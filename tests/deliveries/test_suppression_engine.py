"""Every send checks the suppression list first (docs/design.md, "Suppression and unsubscribe"):
no provider call for a suppressed recipient, a `suppressed:` failure or a skip, the others of
several recipients still sent; marketing email carries a one-click unsubscribe."""

from __future__ import annotations

import pytest
from django.core import mail

from tests.factories import chain, email_node, sms_node
from tests.workers.helpers import run_to_the_end
from triggers.models import TriggerInstance
from workers.models import SendLedger, StepExecutionLog
from workers.services.suppression import suppression_add, unsubscribe_token_read

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def locmem(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.NOTIFLOW_PUBLIC_URL = "https://notify.example.com"


def run(definition: dict, payload: dict) -> TriggerInstance:
    return run_to_the_end(definition, {"name": "Ada", **payload})


def test_a_suppressed_recipient_gets_no_provider_call_and_the_run_fails_saying_why():
    suppression_add(channel="email", recipient="Gone@Example.com", reason="bounced")

    trigger = run(chain(email_node("mail")), {"email": "gone@example.com"})

    assert trigger.status == "failed"
    assert trigger.last_error.startswith("suppressed: gone@example.com (bounced, ")
    assert mail.outbox == []
    assert SendLedger.objects.get(trigger=trigger).send_count == 0  # opened, never sent


def test_skip_suppressed_skips_the_node_and_the_run_goes_on():
    suppression_add(channel="sms", recipient="+15550100", reason="unsubscribed")
    definition = chain(sms_node("text", skip_suppressed=True), email_node("mail"))

    trigger = run(definition, {"phone": "+15550100", "email": "ada@example.com"})

    assert trigger.status == "completed"
    assert trigger.vars["sms_text"]["skipped"].startswith("suppressed: +15550100")
    assert len(mail.outbox) == 1
    step = StepExecutionLog.objects.get(trigger=trigger, node_id="text")
    assert step.success and "skipped" in step.output


def test_of_several_recipients_the_suppressed_are_left_out():
    suppression_add(channel="email", recipient="b@example.com", reason="complained")
    node = email_node(
        "mail", to="a@example.com, B <b@example.com>, c@example.com", max_recipients=3
    )

    trigger = run(chain(node), {})

    assert trigger.status == "completed"
    (message,) = mail.outbox
    assert message.to == ["a@example.com", "c@example.com"]
    assert trigger.vars["email_mail"]["suppressed"] == ["b@example.com"]


def marketing(*nodes: dict) -> dict:
    return {**chain(*nodes), "category": "marketing"}


def test_marketing_email_carries_a_one_click_unsubscribe_and_transactional_does_not():
    run(marketing(email_node("mail")), {"email": "Ada@Example.com"})
    run(chain(email_node("mail")), {"email": "ada@example.com"})

    marketing_mail, transactional_mail = mail.outbox
    link = marketing_mail.extra_headers["List-Unsubscribe"]
    assert link.startswith("<https://notify.example.com/deliveries/unsubscribe/") and link.endswith(
        "/>"
    )
    assert marketing_mail.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    token = link.removeprefix("<https://notify.example.com/deliveries/unsubscribe/")[:-2]
    assert unsubscribe_token_read(token) == ("email", "ada@example.com")
    assert "List-Unsubscribe" not in transactional_mail.extra_headers


def test_a_marketing_suppression_stops_marketing_mail_only():
    suppression_add(
        channel="email", recipient="ada@example.com", reason="unsubscribed", scope="marketing"
    )

    stopped = run(marketing(email_node("mail")), {"email": "ada@example.com"})
    delivered = run(chain(email_node("mail")), {"email": "ada@example.com"})

    assert stopped.status == "failed" and "from marketing" in stopped.last_error
    assert delivered.status == "completed" and len(mail.outbox) == 1


def test_marketing_email_without_a_public_url_fails_naming_the_setting(settings):
    settings.NOTIFLOW_PUBLIC_URL = ""

    trigger = run(marketing(email_node("mail")), {"email": "ada@example.com"})

    assert trigger.status == "failed" and "NOTIFLOW_PUBLIC_URL" in trigger.last_error
    assert mail.outbox == []
