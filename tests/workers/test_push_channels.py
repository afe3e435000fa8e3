"""The push channels through the engine, in process (workers/channels/push.py, workers/services/
push.py), against the loopback push services of tests/support/push.py: one message per address
of the run's recipient, exactly once per address across retries, gone addresses removed."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from deliveries.suppression import suppression_add
from events.models import OutboxEvent, WebhookEndpoint
from recipients.models import Recipient
from tests.conftest import unique
from tests.factories import chain, push_node, webpush_node
from tests.support.push import FcmService, PushService
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workers.models import SendLedger, StepExecutionLog
from workers.providers.push import vapid_key_pair
from workers.services.engine import step_execute
from workers.services.push import address_id

pytestmark = pytest.mark.django_db

PAYLOAD = {"name": "Ann", "order": 7}


@pytest.fixture(scope="module")
def vapid():
    return vapid_key_pair()


@pytest.fixture(scope="module")
def push_service(vapid):
    service = PushService(vapid_public_key=vapid[1])
    service.start()
    yield service
    service.stop()


@pytest.fixture(scope="module")
def fcm_service():
    service = FcmService()
    service.start()
    yield service
    service.stop()


@pytest.fixture(autouse=True)
def push_settings(settings, vapid, fcm_service):
    settings.NOTIFLOW_VAPID_PRIVATE_KEY, settings.NOTIFLOW_VAPID_PUBLIC_KEY = vapid
    settings.NOTIFLOW_VAPID_SUBJECT = "mailto:ops@example.com"
    settings.NOTIFLOW_WEBPUSH_ALLOW_HTTP = True  # the push service on loopback
    settings.NOTIFLOW_FCM_SERVICE_ACCOUNT_JSON = json.dumps(fcm_service.service_account())
    settings.NOTIFLOW_FCM_BASE_URL = fcm_service.url
    return settings


def person(**channels) -> Recipient:
    return Recipient.objects.create(key=unique("person"), channels=channels)


def step(trigger: TriggerInstance) -> str | None:
    """One step, made due at once (the claim compares with the database's now(), which stands
    still inside a test's transaction)."""
    TriggerInstance.objects.filter(pk=trigger.pk).update(
        available_at=timezone.now() - timedelta(hours=1)
    )
    return step_execute(trigger_id=str(trigger.pk), worker_id="w")


def test_one_message_per_subscription_decrypted_by_each_browser(push_service):
    ann, bob = unique("ok-ann"), unique("ok-bob")
    subscriptions = [push_service.subscribe(ann), push_service.subscribe(bob)]
    recipient = person(webpush=subscriptions)
    trigger = due_trigger(chain(webpush_node("browser")), payload=PAYLOAD, recipient=recipient.key)

    assert step(trigger) == "completed"

    for name in (ann, bob):
        (message,) = push_service.messages[name]
        message.pop("_headers")
        assert message == {
            "title": "Hi Ann",
            "body": "Your order 7 shipped",
            "url": "/orders/7",
            "tag": message["tag"],
        }
    trigger.refresh_from_db()
    output = trigger.vars["webpush_browser"]
    assert output["to"] == [address_id(s) for s in subscriptions]
    assert output["delivered"] == 2 and output["gone"] == []
    assert output["provider"] == "webpush" and output["message_id"] == message["tag"]
    ledger = SendLedger.objects.get(trigger=trigger)
    assert (ledger.status, ledger.send_count, ledger.channel) == ("sent", 1, "webpush")


def test_a_gone_subscription_is_removed_and_announced(push_service):
    WebhookEndpoint.objects.create(
        url="https://hooks.example.com/in", events=["message.failed"], secret="whsec_dGVzdA=="
    )
    kept, gone = push_service.subscribe(unique("ok-kept")), push_service.subscribe(unique("gone"))
    recipient = person(webpush=[kept, gone], slack={"user": "U1"})
    trigger = due_trigger(chain(webpush_node("browser")), payload=PAYLOAD, recipient=recipient.key)

    assert step(trigger) == "completed"

    recipient.refresh_from_db()
    assert recipient.channels == {"webpush": [kept], "slack": {"user": "U1"}}
    (event,) = OutboxEvent.objects.filter(trigger_id=trigger.pk, type="message.failed")
    assert event.data["message"]["gone"] == [address_id(gone)]
    assert event.data["message"]["failed"] == "gone"


def test_every_subscription_gone_fails_the_run_and_empties_the_list(push_service):
    recipient = person(webpush=[push_service.subscribe(unique("missing"))])
    trigger = due_trigger(chain(webpush_node("browser")), payload=PAYLOAD, recipient=recipient.key)

    assert step(trigger) == "failed"

    trigger.refresh_from_db()
    assert "is gone" in trigger.last_error and "HTTP 404" in trigger.last_error
    recipient.refresh_from_db()
    assert recipient.channels == {"webpush": []}


def test_a_retry_sends_only_to_the_subscriptions_not_yet_answered(push_service):
    first, flaky, last = unique("ok-first"), unique("fail1-flaky"), unique("ok-last")
    recipient = person(webpush=[push_service.subscribe(n) for n in (first, flaky, last)])
    trigger = due_trigger(chain(webpush_node("browser")), payload=PAYLOAD, recipient=recipient.key)

    assert step(trigger) == "enqueued"  # the 503 of `flaky`: a transient failure, retried
    assert [len(push_service.messages[n]) for n in (first, flaky, last)] == [1, 0, 0]
    assert step(trigger) == "completed"

    assert [len(push_service.messages[n]) for n in (first, flaky, last)] == [1, 1, 1]
    assert push_service.counts[first] == 1  # never asked again
    ledger = SendLedger.objects.get(trigger=trigger)
    assert ledger.send_count == 2 and ledger.providers == ["webpush", "webpush"]
    assert ledger.result["delivered"] == 3


def test_a_429_with_retry_after_waits_without_an_attempt(push_service):
    done, busy = unique("ok-done"), unique("busy")
    recipient = person(webpush=[push_service.subscribe(done), push_service.subscribe(busy)])
    trigger = due_trigger(chain(webpush_node("browser")), payload=PAYLOAD, recipient=recipient.key)

    assert step(trigger) == "enqueued"
    trigger.refresh_from_db()
    assert trigger.attempts == 0 and not trigger.last_error
    assert not StepExecutionLog.objects.filter(trigger=trigger).exists()  # no attempt
    assert step(trigger) == "completed"
    assert len(push_service.messages[done]) == 1 and len(push_service.messages[busy]) == 1
    # The first attempt reached the push service (`done` got its message) before the wait:
    # the ledger counts it, as it counts any attempt that reached a provider.
    ledger = SendLedger.objects.get(trigger=trigger)
    assert ledger.send_count == 2 and ledger.providers == ["webpush", "webpush"]


def test_a_429_before_any_address_leaves_the_ledger_uncounted(push_service):
    busy, done = unique("busy"), unique("ok-done")
    recipient = person(webpush=[push_service.subscribe(busy), push_service.subscribe(done)])
    trigger = due_trigger(chain(webpush_node("browser")), payload=PAYLOAD, recipient=recipient.key)

    assert step(trigger) == "enqueued"  # the 429 came first: nothing reached the service
    assert SendLedger.objects.get(trigger=trigger).send_count == 0
    assert step(trigger) == "completed"
    ledger = SendLedger.objects.get(trigger=trigger)
    assert ledger.send_count == 1 and ledger.providers == ["webpush"]


def test_an_http_subscription_is_not_used_unless_allowed(push_service, settings):
    settings.NOTIFLOW_WEBPUSH_ALLOW_HTTP = False
    recipient = person(webpush=[push_service.subscribe(unique("ok-plain"))])
    trigger = due_trigger(chain(webpush_node("browser")), payload=PAYLOAD, recipient=recipient.key)
    assert step(trigger) == "failed"
    trigger.refresh_from_db()
    assert "has no address in channels.webpush" in trigger.last_error


def test_a_run_without_a_recipient_fails_saying_so():
    trigger = due_trigger(chain(webpush_node("browser")), payload=PAYLOAD)
    assert step(trigger) == "failed"
    trigger.refresh_from_db()
    assert "the run has no recipient" in trigger.last_error


def test_fcm_sends_to_each_device_and_drops_unregistered_tokens(fcm_service):
    phone, old = unique("ok-phone"), unique("unregistered-tablet")
    recipient = person(fcm=[phone, old])
    trigger = due_trigger(chain(push_node("phone")), payload=PAYLOAD, recipient=recipient.key)

    assert step(trigger) == "completed"

    (message,) = fcm_service.messages[phone]
    assert message["notification"] == {"title": "Hi Ann", "body": "Your order 7 shipped"}
    recipient.refresh_from_db()
    assert recipient.channels == {"fcm": [phone]}
    trigger.refresh_from_db()
    output = trigger.vars["push_phone"]
    assert output["delivered"] == 1 and output["gone"] == [address_id(old)]
    assert output["provider_message_id"].startswith("projects/notiflow-test/messages/")


def test_a_subscription_found_gone_before_a_retry_is_still_reported(push_service):
    gone, flaky = push_service.subscribe(unique("gone")), push_service.subscribe(unique("fail1"))
    recipient = person(webpush=[gone, flaky])
    trigger = due_trigger(chain(webpush_node("browser")), payload=PAYLOAD, recipient=recipient.key)

    assert step(trigger) == "enqueued"  # `gone` removed, then the 503
    recipient.refresh_from_db()
    assert recipient.channels == {"webpush": [flaky]}
    assert step(trigger) == "completed"

    trigger.refresh_from_db()
    output = trigger.vars["webpush_browser"]
    assert output["gone"] == [address_id(gone)] and output["delivered"] == 1
    assert sorted(output["to"]) == sorted([address_id(gone), address_id(flaky)])


def test_a_person_who_turned_push_off_is_skipped(push_service):
    name = unique("ok-off")
    recipient = Recipient.objects.create(
        key=unique("person"),
        channels={"webpush": [push_service.subscribe(name)]},
        preferences={"channels": {"webpush": False}},
    )
    trigger = due_trigger(chain(webpush_node("browser")), payload=PAYLOAD, recipient=recipient.key)

    assert step(trigger) == "completed"
    trigger.refresh_from_db()
    assert trigger.vars["webpush_browser"]["to"] == recipient.key
    assert "skipped" in trigger.vars["webpush_browser"]
    assert push_service.messages[name] == []


def test_a_suppressed_person_gets_no_push_on_that_channel_only(push_service, fcm_service):
    name, phone = unique("ok-sup"), unique("ok-phone")
    recipient = person(webpush=[push_service.subscribe(name)], fcm=[phone])
    suppression_add(channel="webpush", recipient=recipient.key, reason="manual")
    definition = chain(webpush_node("browser"), push_node("phone"))
    trigger = due_trigger(definition, payload=PAYLOAD, recipient=recipient.key)

    assert step(trigger) == "enqueued"  # an operator's suppression: skipped, the run goes on
    assert step(trigger) == "completed"
    trigger.refresh_from_db()
    skipped = trigger.vars["webpush_browser"]
    assert skipped["rule"] == "opt-out" and skipped["to"] == recipient.key
    assert push_service.messages[name] == []
    assert len(fcm_service.messages[phone]) == 1  # a webpush suppression is not a push one


def test_the_per_recipient_cap_counts_pushes_per_person(push_service, settings):
    settings.NOTIFLOW_SEND_CAP_PER_RECIPIENT = 1
    name = unique("ok-capped")
    recipient = person(webpush=[push_service.subscribe(name)])
    first, second = (
        due_trigger(chain(webpush_node("browser")), payload=PAYLOAD, recipient=recipient.key)
        for _ in range(2)
    )
    assert step(first) == "completed"
    assert step(second) == "failed"
    second.refresh_from_db()
    assert f"send cap: recipient {recipient.key} reached 1 webpush messages" in second.last_error
    assert len(push_service.messages[name]) == 1
