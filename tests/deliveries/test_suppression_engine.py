"""Every send checks the suppression list first (docs/design/deliveries.md, "Suppression and unsubscribe"):
no provider call for a suppressed recipient; an opt-out or a marketing send is skipped (the run
goes on, the step log and `message.skipped` name the rule and the entry), a transactional send's
hard bounce or complaint fails; the others of several recipients still sent; marketing email
carries a one-click unsubscribe."""

from __future__ import annotations

import pytest
from django.core import mail

from deliveries.suppression import suppression_add, unsubscribe_token_read
from events import catalog
from events.models import OutboxEvent, WebhookEndpoint
from events.services.endpoints import endpoint_create
from tests.factories import chain, email_node, sms_node
from tests.workers.helpers import run_to_the_end
from triggers.models import TriggerEvent, TriggerInstance
from workers.models import SendLedger, StepExecutionLog

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def locmem(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.NOTIFLOW_PUBLIC_URL = "https://notify.example.com"


def run(definition: dict, payload: dict) -> TriggerInstance:
    return run_to_the_end(definition, {"name": "Ada", **payload})


def test_a_hard_bounce_stops_a_transactional_send_with_no_provider_call_and_fails_saying_why():
    suppression_add(channel="email", recipient="Gone@Example.com", reason="bounced")

    trigger = run(chain(email_node("mail")), {"email": "gone@example.com"})

    assert trigger.status == "failed"
    assert trigger.last_error.startswith("suppressed: gone@example.com (bounced, ")
    assert mail.outbox == []
    assert SendLedger.objects.get(trigger=trigger).send_count == 0  # opened, never sent


def test_a_complaint_stops_a_transactional_send_as_a_failure():
    suppression_add(channel="email", recipient="cross@example.com", reason="complained")

    trigger = run(chain(email_node("mail")), {"email": "cross@example.com"})

    assert trigger.status == "failed" and trigger.last_error.startswith("suppressed: cross@")


def test_skip_suppressed_skips_even_a_hard_bounce_and_the_run_goes_on():
    row, _ = suppression_add(channel="sms", recipient="+15550100", reason="bounced")
    definition = chain(sms_node("text", skip_suppressed=True), email_node("mail"))

    trigger = run(definition, {"phone": "+15550100", "email": "ada@example.com"})

    assert trigger.status == "completed"
    assert trigger.vars["sms_text"]["skipped"].startswith("suppressed: +15550100")
    assert trigger.vars["sms_text"]["rule"] == "skip_suppressed"
    assert len(mail.outbox) == 1
    step = StepExecutionLog.objects.get(trigger=trigger, node_id="text")
    assert step.success and step.output["suppressions"][0]["id"] == row.pk


@pytest.fixture
def subscriber():
    """An endpoint for every event (the test's transaction rolls it back), others set aside."""
    WebhookEndpoint.objects.all().delete()
    return endpoint_create(url="http://127.0.0.1:9/hook", events=["*"])


def test_an_unsubscribed_recipient_is_a_skip_that_the_run_goes_on_from(subscriber):
    row, _ = suppression_add(channel="sms", recipient="+15550100", reason="unsubscribed")
    definition = chain(sms_node("text"), email_node("mail"))

    trigger = run(definition, {"phone": "+15550100", "email": "ada@example.com"})

    assert trigger.status == "completed" and trigger.last_error == ""
    assert len(mail.outbox) == 1
    step = StepExecutionLog.objects.get(trigger=trigger, node_id="text")
    assert step.success and step.error == ""
    assert step.output["skipped"].startswith("suppressed: +15550100 (unsubscribed, ")
    assert step.output["rule"] == "opt-out"
    (entry,) = step.output["suppressions"]
    assert (entry["id"], entry["scope"], entry["reason"]) == (row.pk, "all", "unsubscribed")
    reasons = list(TriggerEvent.objects.filter(trigger=trigger).values_list("reason", flat=True))
    assert any(r.startswith("text skipped (suppressed: +15550100") for r in reasons), reasons
    types = list(OutboxEvent.objects.order_by("id").values_list("type", flat=True))
    assert types == [catalog.MESSAGE_SKIPPED, catalog.MESSAGE_SENT, catalog.TRIGGER_COMPLETED]
    skipped = OutboxEvent.objects.get(type=catalog.MESSAGE_SKIPPED).data["message"]
    assert (skipped["node_id"], skipped["channel"], skipped["rule"]) == ("text", "sms", "opt-out")
    assert skipped["suppressions"][0]["id"] == row.pk


def test_a_when_edge_can_branch_on_a_skipped_send():
    suppression_add(channel="email", recipient="ada@example.com", reason="manual")
    definition = {
        "entry_node_id": "mail",
        "nodes": [email_node("mail"), sms_node("fallback"), sms_node("thanks")],
        "edges": [
            {"from": "mail", "to": "fallback", "when": "vars.email_mail.skipped"},
            {"from": "mail", "to": "thanks"},
        ],
    }

    trigger = run(definition, {"email": "ada@example.com", "phone": "+15550101"})

    assert trigger.status == "completed"
    assert "sms_fallback" in trigger.vars and "sms_thanks" not in trigger.vars


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
    channel, recipient, key = unsubscribe_token_read(token)
    assert (channel, recipient, key.partition(":")[2]) == ("email", "ada@example.com", "mail")
    assert "List-Unsubscribe" not in transactional_mail.extra_headers


def test_a_marketing_suppression_skips_marketing_mail_only():
    suppression_add(
        channel="email", recipient="ada@example.com", reason="unsubscribed", scope="marketing"
    )

    skipped = run(marketing(email_node("mail")), {"email": "ada@example.com"})
    delivered = run(chain(email_node("mail")), {"email": "ada@example.com"})

    assert skipped.status == "completed" and skipped.last_error == ""
    assert "from marketing" in skipped.vars["email_mail"]["skipped"]
    assert delivered.status == "completed" and len(mail.outbox) == 1


def test_any_suppression_of_a_marketing_send_is_a_skip_by_the_marketing_rule():
    suppression_add(channel="email", recipient="gone@example.com", reason="bounced")

    trigger = run(marketing(email_node("mail")), {"email": "gone@example.com"})

    assert trigger.status == "completed" and mail.outbox == []
    assert trigger.vars["email_mail"]["rule"] == "marketing"
    assert SendLedger.objects.get(trigger=trigger).send_count == 0


def test_marketing_email_without_a_public_url_fails_naming_the_setting(settings):
    settings.NOTIFLOW_PUBLIC_URL = ""

    trigger = run(marketing(email_node("mail")), {"email": "ada@example.com"})

    assert trigger.status == "failed" and "NOTIFLOW_PUBLIC_URL" in trigger.last_error
    assert mail.outbox == []


def test_a_suppression_added_after_this_process_read_the_list_still_stops_the_next_send():
    """The list a worker holds is as of the claim's generation (deliveries migration 0005): an
    entry added, changed or removed moves it, and the next send reads the list again."""
    from deliveries.models import Suppression
    from deliveries.suppression import SUPPRESSIONS

    first = run(chain(email_node("mail")), {"email": "later@example.com"})
    assert first.status == "completed" and SUPPRESSIONS.lists.get("email") is not None
    held = SUPPRESSIONS.generation

    suppression_add(channel="email", recipient="later@example.com", reason="bounced")
    stopped = run(chain(email_node("mail")), {"email": "later@example.com"})
    assert stopped.status == "failed" and stopped.last_error.startswith("suppressed: later@")
    assert SUPPRESSIONS.generation != held

    Suppression.objects.filter(recipient="later@example.com").update(scope="marketing")
    again = run(chain(email_node("mail")), {"email": "later@example.com"})
    assert again.status == "completed"  # a transactional send: marketing scope lets it through
    assert len(mail.outbox) == 2


def test_a_list_longer_than_the_process_holds_is_asked_of_postgresql_per_send(monkeypatch):
    from deliveries.suppression import SUPPRESSIONS

    monkeypatch.setattr(SUPPRESSIONS, "limit", 1)
    suppression_add(channel="email", recipient="one@example.com", reason="bounced")
    suppression_add(channel="email", recipient="two@example.com", reason="bounced")

    stopped = run(chain(email_node("mail")), {"email": "two@example.com"})

    assert SUPPRESSIONS.lists["email"] is None  # not held
    assert stopped.status == "failed" and stopped.last_error.startswith("suppressed: two@")
