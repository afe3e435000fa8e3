"""Twilio's StatusCallback (docs/design/deliveries.md, "Deliveries"; docs/security/providers.md): signed with Twilio's
own RequestValidator, or refused with 403 and nothing changed."""

from __future__ import annotations

import uuid

import pytest
from twilio.request_validator import RequestValidator

from deliveries.models import DeliveryEvent, Suppression
from tests.deliveries.support import sent

pytestmark = pytest.mark.django_db

PATH = "/deliveries/twilio/status/"
TOKEN = "twilio-test-auth-token"


@pytest.fixture(autouse=True)
def auth_token(settings):
    settings.TWILIO_AUTH_TOKEN = TOKEN
    settings.NOTIFLOW_SMS_PROVIDERS = []
    settings.NOTIFLOW_SMS_BACKEND = "twilio"  # the one provider, named `twilio`
    settings.NOTIFLOW_PUBLIC_URL = "https://notify.example.com"


def callback(client, params: dict[str, str], *, token: str = TOKEN):
    # Signed over the URL Twilio called: the public one, not the test client's host.
    signature = RequestValidator(token).compute_signature(
        "https://notify.example.com" + PATH, params
    )
    return client.post(PATH, params, HTTP_X_TWILIO_SIGNATURE=signature)


def params(sid: str, status: str, **extra: str) -> dict[str, str]:
    return {
        "MessageSid": sid,
        "MessageStatus": status,
        "To": "+15550100",
        "From": "+15550199",
        "AccountSid": "AC" + "0" * 32,
        **extra,
    }


def test_signed_callbacks_are_recorded_in_order(client):
    sid = "SM" + uuid.uuid4().hex
    trigger = sent(sid, to="+15550100", provider="twilio", channel="sms")

    assert callback(client, params(sid, "sent")).status_code == 200
    assert callback(client, params(sid, "delivered")).status_code == 200
    assert callback(client, params(sid, "delivered")).status_code == 200  # Twilio retried

    events = list(
        DeliveryEvent.objects.filter(trigger_id=trigger.pk).values_list("event", flat=True)
    )
    assert events == ["sent", "delivered"]


def test_undelivered_and_failed_are_failures_and_stop_is_an_unsubscribe(client):
    failed, stopped = "SM" + uuid.uuid4().hex, "SM" + uuid.uuid4().hex
    sent(failed, to="+15550100", provider="twilio", channel="sms")
    sent(stopped, to="+15550100", provider="twilio", channel="sms")

    callback(client, params(failed, "undelivered", ErrorCode="30003"))
    callback(client, params(stopped, "failed", ErrorCode="21610"))

    assert DeliveryEvent.objects.get(provider_message_id=failed).event == "failed"
    assert DeliveryEvent.objects.get(provider_message_id=stopped).event == "unsubscribed"
    suppression = Suppression.objects.get(channel="sms", recipient="+15550100")
    assert suppression.reason == "unsubscribed"


@pytest.mark.parametrize("signature", ["", "forged"], ids=["missing", "wrong"])
def test_a_callback_without_a_valid_signature_is_403_and_changes_nothing(client, signature):
    sid = "SM" + uuid.uuid4().hex
    trigger = sent(sid, to="+15550100", provider="twilio", channel="sms")

    response = client.post(
        PATH,
        params(sid, "delivered"),
        **({"HTTP_X_TWILIO_SIGNATURE": signature} if signature else {}),
    )

    assert response.status_code == 403
    assert not DeliveryEvent.objects.filter(trigger_id=trigger.pk).exists()


def test_a_callback_signed_with_another_token_is_refused(client):
    sid = "SM" + uuid.uuid4().hex
    sent(sid, to="+15550100", provider="twilio", channel="sms")

    assert callback(client, params(sid, "delivered"), token="someone-else").status_code == 403


def test_a_callback_about_an_unknown_message_is_acknowledged(client):
    assert callback(client, params("SM" + uuid.uuid4().hex, "delivered")).status_code == 200
