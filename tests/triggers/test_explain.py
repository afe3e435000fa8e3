"""A run's story (docs/design/rules.md, rule 20;
docs/design/deliveries.md, "Explaining a run"), in-process: each step records
what it decided, with the rule and the evidence, when it runs; `GET /api/triggers/<id>/explain/`
reads that record back, one entry per node reached, oldest first, for every decision kind (sent,
skipped by a preference, a suppression, a missing address or an erasure; failed by a template,
a transactional suppression or a send cap; retrying; waiting; deferred by a delay, an `until`, a
window or an open digest; passed; throttled; digested; rate limited; cancelled; pending). A
preference changed after the step does not change the story."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any
from unittest import mock

import pytest
import redis
from django.conf import settings as django_settings
from django.utils import timezone
from rest_framework.test import APIClient

from deliveries.suppression import suppression_add
from recipients.models import Category, Recipient
from recipients.services import recipient_erase
from tests.conftest import unique
from tests.factories import (
    chain,
    delay_node,
    email_node,
    sms_node,
)
from tests.workers.helpers import due_trigger
from triggers.api_keys import api_key_create
from triggers.models import TriggerInstance
from triggers.state import trigger_cancel
from workers.channels import CHANNELS
from workers.errors import TransientError
from workers.models import StepExecutionLog
from workers.services.engine import step_execute

pytestmark = [pytest.mark.django_db]

PAYLOAD = {"email": "ann@example.com", "phone": "+15550100", "name": "Ann", "user": "u1"}


@pytest.fixture(autouse=True)
def locmem(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture
def api() -> APIClient:
    _, key = api_key_create(name=unique("explain"))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def step(trigger: TriggerInstance, *, at: datetime | None = None) -> TriggerInstance:
    """One step, made due first (the database's now() stands still in a test's transaction);
    `at` is the step's clock."""
    TriggerInstance.objects.filter(pk=trigger.pk, status="enqueued").update(
        available_at=timezone.now() - timedelta(days=400)
    )
    if at is None:
        step_execute(trigger_id=str(trigger.pk), worker_id="w")
    else:
        with mock.patch("workers.services.engine.StepClock.now", return_value=at):
            step_execute(trigger_id=str(trigger.pk), worker_id="w")
    trigger.refresh_from_db()
    return trigger


def story(api: APIClient, trigger: TriggerInstance) -> list[dict[str, Any]]:
    response = api.get(f"/api/triggers/{trigger.pk}/explain/")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["trigger"], body["status"]) == (str(trigger.pk), trigger.status)
    return body["story"]


def told(entries: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(e["node"], e["decision"], e["reason"]) for e in entries]


def ann(**fields: Any) -> Recipient:
    return Recipient.objects.create(
        key=unique("ann"), name="Ann", email="ann@example.com", **fields
    )


def sibling(first: TriggerInstance, payload: dict[str, Any]) -> TriggerInstance:
    """Another run of `first`'s workflow version, due at its entry node."""
    return TriggerInstance.objects.create(
        workflow=first.workflow,
        workflow_version=first.workflow_version,
        idempotency_key=unique("k"),
        payload=payload,
        status="enqueued",
        current_node_id=first.current_node_id,
        available_at=first.available_at,
    )


def without_to(node: dict) -> dict:
    return {k: v for k, v in node.items() if k != "to"}


# --- sends ------------------------------------------------------------------------------------


def test_a_preference_skip_names_the_person_the_switch_and_its_path(api):
    Category.objects.create(slug="comments")
    person = ann(preferences={"categories": {"comments": {"email": False}}})
    definition = {
        **chain(without_to(email_node("mail")), sms_node("text")),
        "preference_category": "comments",
    }
    trigger = step(step(due_trigger(definition, payload=PAYLOAD, recipient=person.key)))
    assert trigger.status == "completed"

    mail, text = story(api, trigger)

    assert (mail["node"], mail["type"], mail["decision"], mail["rule"]) == (
        "mail",
        "email",
        "skipped",
        "preference",
    )
    assert mail["reason"] == (
        "Email skipped: Ann turned off email for comments (categories.comments.email)"
    )
    assert mail["evidence"] == {
        "preference": "categories.comments.email",
        "value": False,
        "channel": "email",
        "to": "ann@example.com",
    }
    assert text["decision"] == "sent" and text["reason"].startswith(
        "Text message (SMS) sent to +15550100 through "
    )
    assert text["evidence"]["to"] == "+15550100" and mail["at"] <= text["at"]

    # Turned on again since: the story is what was decided then, not what would be now.
    Recipient.objects.filter(pk=person.pk).update(preferences={})
    assert story(api, trigger)[0] == mail


@pytest.mark.parametrize(
    ("preferences", "reason"),
    [
        ({"workflows": {"{workflow}": False}}, "Ann turned off the notifications of {workflow}"),
        ({"categories": {"comments": False}}, "Ann turned off everything in comments"),
        ({"channels": {"email": False}}, "Ann turned off email"),
    ],
    ids=["workflow", "whole category", "channel"],
)
def test_each_kind_of_preference_is_said_in_its_words(api, preferences, reason):
    Category.objects.create(slug="comments")
    definition = {**chain(without_to(email_node("mail"))), "preference_category": "comments"}
    person = ann()
    trigger = due_trigger(definition, payload=PAYLOAD, recipient=person.key)
    workflow = trigger.workflow.key
    filled = {
        section: {name.format(workflow=workflow): value for name, value in switches.items()}
        for section, switches in preferences.items()
    }
    Recipient.objects.filter(pk=person.pk).update(preferences=filled)

    (mail,) = story(api, step(trigger))

    assert mail["decision"] == "skipped"
    assert mail["reason"].startswith(f"Email skipped: {reason.format(workflow=workflow)} (")


def test_an_operators_default_is_said_as_one(api):
    Category.objects.create(slug="digest", defaults={"email": False})
    definition = {**chain(without_to(email_node("mail"))), "preference_category": "digest"}
    trigger = step(due_trigger(definition, payload=PAYLOAD, recipient=ann().key))

    (mail,) = story(api, trigger)

    assert mail["reason"] == (
        "Email skipped: email is off by default for digest and Ann did not turn it on "
        "(defaults.digest.email)"
    )


def test_a_suppression_skip_names_the_entry_and_its_source(api):
    row, _ = suppression_add(
        channel="email", recipient="ann@example.com", reason="unsubscribed", source="one-click"
    )
    trigger = step(due_trigger(chain(email_node("mail")), payload=PAYLOAD))

    (mail,) = story(api, trigger)

    assert (mail["decision"], mail["rule"]) == ("skipped", "opt-out")
    assert mail["reason"] == (
        f"Email skipped: ann@example.com is on the suppression list (unsubscribed since "
        f"{row.created_at:%Y-%m-%d}, by one-click, entry {row.pk})"
    )
    (entry,) = mail["evidence"]["suppressions"]
    assert (entry["id"], entry["reason"], entry["source"]) == (row.pk, "unsubscribed", "one-click")


def test_a_transactional_send_to_a_hard_bounce_fails_naming_the_entry(api):
    row, _ = suppression_add(channel="email", recipient="ann@example.com", reason="bounced")
    trigger = step(due_trigger(chain(email_node("mail")), payload=PAYLOAD))
    assert trigger.status == "failed"

    (mail,) = story(api, trigger)

    assert (mail["decision"], mail["rule"]) == ("failed", "suppressed")
    assert mail["reason"].startswith("Email failed (permanent): suppressed: ann@example.com")
    assert mail["evidence"]["suppressions"][0]["id"] == row.pk


def test_a_missing_address_and_an_erased_person_are_skips_saying_so(api):
    nobody = Recipient.objects.create(key=unique("bo"), name="Bo")
    missing = chain(without_to(email_node("mail", skip_missing=True)))
    trigger = step(due_trigger(missing, payload=PAYLOAD, recipient=nobody.key))
    (mail,) = story(api, trigger)
    assert (mail["decision"], mail["rule"]) == ("skipped", "missing_address")
    assert mail["reason"] == ("Email skipped: Bo has no address for it (recipient.email is empty)")

    gone = ann()
    trigger = due_trigger(chain(email_node("mail")), payload=PAYLOAD, recipient=gone.key)
    recipient_erase(key=gone.key)
    (mail,) = story(api, step(trigger))
    assert (mail["decision"], mail["rule"], mail["reason"]) == (
        "skipped",
        "recipient_erased",
        "Email skipped: the recipient was erased after the run began",
    )


def test_a_send_cap_fails_the_send_saying_whose_cap(api, settings):
    settings.NOTIFLOW_SEND_CAP_PER_RECIPIENT = 1
    address = f"{uuid.uuid4().hex[:10]}@example.com"
    first = step(due_trigger(chain(email_node("mail")), payload={**PAYLOAD, "email": address}))
    second = step(due_trigger(chain(email_node("mail")), payload={**PAYLOAD, "email": address}))
    assert (first.status, second.status) == ("completed", "failed")

    (mail,) = story(api, second)

    assert (mail["decision"], mail["rule"]) == ("failed", "send_cap")
    assert mail["reason"] == (
        f"Email failed (permanent): send cap: recipient {address} reached 1 email messages "
        "this hour"
    )
    assert mail["evidence"] | {"count": 2} == {
        "error": mail["evidence"]["error"],
        "attempt": 1,
        "permanent": True,
        "who": f"recipient {address}",
        "cap": 1,
        "channel": "email",
        "count": 2,
    }


def test_a_template_that_fails_is_a_permanent_failure(api):
    trigger = step(due_trigger(chain(email_node("mail", subject="{{ payload.nope }}")), PAYLOAD))

    (mail,) = story(api, trigger)

    assert (mail["decision"], mail["rule"]) == ("failed", "template")
    assert "nope" in mail["reason"] and mail["reason"].startswith("Email failed (permanent):")


def test_a_transient_failure_is_retrying_then_the_send_keeps_it_as_earlier(api, monkeypatch):
    real = CHANNELS["email"].send

    def later(*args: Any, **kwargs: Any) -> Any:
        raise TransientError("SMTP 451: later")

    monkeypatch.setattr(CHANNELS["email"], "send", later)
    trigger = step(due_trigger(chain(email_node("mail")), payload=PAYLOAD))
    (mail,) = story(api, trigger)
    assert (mail["decision"], mail["rule"]) == ("retrying", "provider")
    assert mail["reason"].startswith("Email failed (attempt 1 of ")
    assert mail["reason"].endswith("SMTP 451: later")
    assert mail["evidence"]["retry_in_seconds"] > 0 and mail["evidence"]["provider"]

    monkeypatch.setattr(CHANNELS["email"], "send", real)
    (mail,) = story(api, step(trigger))
    assert mail["decision"] == "sent"
    assert [e["decision"] for e in mail["earlier"]] == ["retrying"]


def test_a_send_that_went_names_address_provider_and_the_preference_that_let_it(api):
    person = ann(preferences={"channels": {"email": True}})
    trigger = step(
        due_trigger(chain(without_to(email_node("mail"))), PAYLOAD, recipient=person.key)
    )

    (mail,) = story(api, trigger)

    provider = mail["evidence"]["provider"]
    assert (mail["decision"], mail["rule"]) == ("sent", "")
    assert mail["reason"] == (
        f"Email sent to ann@example.com through {provider}; channels.email is on"
    )
    assert mail["evidence"]["message_id"] and mail["evidence"]["preference"] == "channels.email"


def test_an_inapp_message_is_sent_to_the_persons_inbox(api):
    person = ann()
    node = {"id": "bell", "type": "inapp", "title": "Hi", "body": "There"}
    trigger = step(due_trigger(chain(node), PAYLOAD, recipient=person.key))

    (bell,) = story(api, trigger)

    assert (bell["decision"], bell["reason"]) == ("sent", "In-app messages: stored in Ann's inbox")


# --- the run's state ---------------------------------------------------------------------------


def test_a_put_back_for_a_providers_rate_limit_is_rate_limited(api, settings):
    provider = f"rated{uuid.uuid4().hex[:8]}"
    settings.NOTIFLOW_EMAIL_PROVIDERS = [provider]
    settings.NOTIFLOW_PROVIDER_SETTINGS = {provider: {"backend": "locmem", "options": {}}}
    settings.NOTIFLOW_PROVIDER_RATE_LIMITS = f"{provider}=1/m"
    client = redis.Redis.from_url(django_settings.NOTIFLOW_REDIS_URL)
    try:
        first = step(due_trigger(chain(email_node("mail")), PAYLOAD))  # the burst
        second = step(due_trigger(chain(email_node("mail")), PAYLOAD))
        assert (first.status, second.status) == ("completed", "enqueued")
        assert not StepExecutionLog.objects.filter(trigger=second).exists()

        (mail,) = story(api, second)
    finally:
        for key in client.scan_iter(f"notiflow:provider-rate:{provider}*"):
            client.delete(key)

    assert (mail["decision"], mail["rule"]) == ("rate_limited", "provider_rate_limit")
    assert mail["reason"].startswith(f"Waiting for provider {provider}'s rate limit: no token for ")
    assert mail["evidence"]["provider"] == provider and mail["evidence"]["wait_seconds"] > 50


def test_a_cancelled_run_says_who_cancelled_it_where(api):
    trigger = step(due_trigger(chain(delay_node(duration="1h"), email_node("mail")), PAYLOAD))
    trigger_cancel(trigger_id=trigger.pk, actor="api:support", reason="customer asked")
    trigger.refresh_from_db()

    wait, mail = story(api, trigger)

    assert wait["decision"] == "deferred"
    assert (mail["decision"], mail["rule"], mail["reason"]) == (
        "cancelled",
        "cancel",
        "Cancelled by api:support: customer asked",
    )


def test_a_step_log_from_before_decisions_were_recorded_still_tells_what_it_can(api):
    trigger = due_trigger(chain(email_node("mail"), sms_node("text")), PAYLOAD)
    now = timezone.now()
    StepExecutionLog.objects.create(  # as a step wrote it before this release
        trigger=trigger,
        workflow=trigger.workflow,
        node_id="mail",
        node_type="email",
        attempt=1,
        started_at=now,
        finished_at=now,
        input={},
        output={"message_id": "<m@x>", "to": "ann@example.com"},
        success=True,
    )
    TriggerInstance.objects.filter(pk=trigger.pk).update(current_node_id="text")
    trigger.refresh_from_db()

    mail, text = story(api, trigger)

    assert (mail["decision"], mail["reason"], mail["rule"]) == (
        "sent",
        "sent to ann@example.com",
        "",
    )
    assert (text["node"], text["decision"]) == ("text", "pending")


def test_explain_is_strict_and_a_run_that_does_not_exist_is_a_404(api):
    trigger = due_trigger(chain(email_node("mail")), PAYLOAD)
    (pending,) = story(api, trigger)
    assert pending["decision"] == "pending"

    unknown = api.get(f"/api/triggers/{trigger.pk}/explain/?verbose=1")
    assert unknown.status_code == 400 and "verbose" in unknown.json()["errors"]
    missing = api.get(f"/api/triggers/{uuid.uuid4()}/explain/")
    assert missing.status_code == 404
