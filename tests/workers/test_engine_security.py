"""The engine refuses what docs/security/content.md says it refuses, permanently and before any provider
call: the ledger counts no send, nothing reaches the outbox, nothing is retried."""

from __future__ import annotations

import uuid

import pytest
from django.core import mail
from django.test import override_settings

from tests.factories import chain, email_node, sms_node
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workers.models import SendLedger
from workers.services.engine import step_execute

pytestmark = pytest.mark.django_db

PHISHING = "<h1>Your account is locked</h1>"
CASES = {
    "open relay": (
        chain(email_node("mail", to="{{ payload.to }}", html="{{ payload.html | raw }}")),
        {"to": ",".join(f"victim{i}@example.com" for i in range(1000)), "html": PHISHING},
        "1000 recipients, more than max_recipients (1)",
    ),
    "header injection": (
        chain(email_node("mail", to="a@example.com", subject="{{ payload.s }}")),
        {"s": "Hello\r\nBcc: everyone@example.com"},
        "'subject' rendered a line break",
    ),
    "header injection through a form feed": (
        chain(email_node("mail", to="a@example.com", subject="{{ payload.s }}")),
        {"s": "Your order\x0cX-Injected : yes"},
        "'subject' rendered a line break or control character ('\\x0c')",
    ),
    "a filter over its budget": (
        chain(
            email_node(
                "mail",
                to="a@example.com",
                body="{{ 'x'" + " | replace: 'x', 'xxxxxxxxxx'" * 8 + " }}",
            )
        ),
        {},
        "NOTIFLOW_TEMPLATE_MAX_VALUE_BYTES",
    ),
    "a filter failing on payload data": (
        chain(email_node("mail", to="a@example.com", body="{{ payload.h | strip_html }}")),
        {"h": "hi <![ there >"},
        "filter 'strip_html' failed: AssertionError",
    ),
    "not an address": (
        chain(email_node("mail", to="{{ payload.to }}")),
        {"to": "@@@"},
        "'@@@' is not an email address",
    ),
    "not a phone number": (
        chain(sms_node("text", to="{{ payload.phone }}")),
        {"phone": "0800 FLOWERS"},
        "E.164",
    ),
    "squaring": (
        chain(
            email_node(
                "mail",
                to="a@example.com",
                body="{% assign n = payload.n %}{% for i in (1..40) %}"
                "{% assign n = n | times: n %}{% endfor %}{{ n }}",
            )
        ),
        {},
        "filter 'times' would make a number of over 4300 digits",
    ),
}


@override_settings(
    EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend", NOTIFLOW_SMS_BACKEND="null"
)
@pytest.mark.parametrize("case", list(CASES))
def test_refused_permanently_before_any_provider_call(case):
    definition, payload, problem = CASES[case]
    trigger = due_trigger(definition, payload={"name": "Ann", "n": 2, **payload})

    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "failed"

    trigger.refresh_from_db()
    assert problem in trigger.last_error and trigger.attempts == 1  # no retry
    assert mail.outbox == []
    ledger = SendLedger.objects.get(trigger=trigger)
    assert (ledger.status, ledger.send_count) == ("sending", 0)  # opened, never sent


@override_settings(
    EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
    NOTIFLOW_SEND_CAP_PER_RECIPIENT=2,
)
def test_a_recipient_gets_at_most_the_cap_per_hour_whatever_the_triggers():
    address = f"cap-{uuid.uuid4().hex[:8]}@example.com"
    definition = chain(email_node("mail", to="{{ payload.to }}"))
    results = [
        step_execute(
            trigger_id=str(due_trigger(definition, payload={"to": address, "name": "A"}).pk),
            worker_id="w",
        )
        for _ in range(3)
    ]
    assert results == ["completed", "completed", "failed"]
    assert len(mail.outbox) == 2
    refused = TriggerInstance.objects.get(status="failed")
    assert f"send cap: recipient {address} reached 2 email messages" in refused.last_error
    assert SendLedger.objects.get(trigger=refused).send_count == 0  # no provider call


@override_settings(NOTIFLOW_SMS_BACKEND="null", NOTIFLOW_SEND_CAP_PER_CREATOR=1)
def test_what_one_creator_has_sent_is_capped_across_recipients():
    creator = f"api:{uuid.uuid4().hex[:8]}"
    definition = chain(sms_node("text", to="{{ payload.phone }}"))
    first, second = (
        due_trigger(definition, payload={"phone": phone, "name": "A"}, created_by=creator)
        for phone in ("+15550101", "+15550102")
    )
    assert step_execute(trigger_id=str(first.pk), worker_id="w") == "completed"
    assert step_execute(trigger_id=str(second.pk), worker_id="w") == "failed"
    second.refresh_from_db()
    assert f"send cap: {creator} reached 1 sms messages" in second.last_error


@override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend")
@pytest.mark.parametrize(
    ("rendered", "headers"),
    [
        ({"to": "a@example.com", "subject": "Hi\x1dBcc: b@example.com"}, None),
        ({"to": "a@example.com", "subject": "Hi"}, {"List-Unsubscribe": "<x>\u2028Bcc: b"}),
    ],
    ids=["subject", "extra header"],
)
def test_the_email_channel_refuses_any_header_that_could_end_its_line_permanently(
    rendered, headers
):
    from workers.channels import CHANNELS
    from workers.errors import PermanentError
    from workers.providers import provider_for_attempt

    provider = provider_for_attempt("email", named="", attempts=0)
    with pytest.raises(PermanentError, match="line break or control character"):
        CHANNELS["email"].send(
            {**rendered, "body": "b"}, idempotency_key="t:n", provider=provider, headers=headers
        )
    assert mail.outbox == []


@override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend")
def test_a_header_parse_error_fails_the_step_permanently_and_counts_no_send(monkeypatch):
    from email.errors import HeaderParseError

    from django.core.mail import EmailMultiAlternatives

    def refuse(self, *args, **kwargs):
        raise HeaderParseError("expected addr-spec")

    monkeypatch.setattr(EmailMultiAlternatives, "send", refuse)
    trigger = due_trigger(chain(email_node("mail", to="a@example.com")), payload={"name": "A"})

    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "failed"

    trigger.refresh_from_db()
    assert "HeaderParseError" in trigger.last_error or "addr-spec" in trigger.last_error
    assert trigger.attempts == 1  # permanent: no retry, so no phantom sends
