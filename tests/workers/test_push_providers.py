"""The push backends (workers/providers/push.py) against the loopback push services of
tests/support/push.py, which decrypt every web push with the subscription's private key, verify
its VAPID JWT, and check FCM's OAuth token."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from tests.support.push import FcmService, PushService
from workers.errors import PermanentError, RateLimited, TransientError
from workers.providers.push import FcmBackend, PushAnswer, WebPushBackend, vapid_key_pair

NOTE = {"title": "Shipped", "body": "Order 7 shipped", "url": "/orders/7", "tag": "push-1"}


@pytest.fixture(scope="module")
def vapid():
    return vapid_key_pair()


@pytest.fixture(scope="module")
def push_service(vapid):
    service = PushService(vapid_public_key=vapid[1])
    service.start()
    yield service
    service.stop()


@pytest.fixture
def webpush(vapid):
    return WebPushBackend(
        private_key=vapid[0],
        subject="mailto:ops@example.com",
        ttl=60,
        timeout=2,
        allow_private=True,  # the push service on loopback
    )


@pytest.fixture(scope="module")
def fcm_service():
    service = FcmService()
    service.start()
    yield service
    service.stop()


@pytest.fixture
def fcm(fcm_service):
    return FcmBackend(
        service_account=fcm_service.service_account(), base_url=fcm_service.url, timeout=2
    )


def test_a_web_push_is_encrypted_to_the_subscription_and_signed_with_vapid(push_service, webpush):
    subscription = push_service.subscribe("ok-ann")
    answer = webpush.send(subscription, NOTE, topic="t0pic")
    (received,) = push_service.messages["ok-ann"]  # decrypted with ann's private key
    headers = received.pop("_headers")
    assert received == NOTE
    assert answer.message_id.startswith(f"{push_service.url}/messages/") and not answer.gone
    assert headers["topic"] == "t0pic" and headers["ttl"] == "60"
    assert headers["content-encoding"] == "aes128gcm"


def test_a_push_signed_with_another_vapid_key_is_refused_for_good(push_service):
    other = WebPushBackend(
        private_key=vapid_key_pair()[0],
        subject="mailto:ops@example.com",
        ttl=60,
        timeout=2,
        allow_private=True,
    )
    with pytest.raises(PermanentError, match="HTTP 401"):
        other.send(push_service.subscribe("ok-eve"), NOTE, topic="t")
    assert push_service.messages["ok-eve"] == []


@pytest.mark.parametrize(("name", "gone"), [("gone-bo", "HTTP 410"), ("missing-cy", "HTTP 404")])
def test_an_expired_subscription_is_gone(push_service, webpush, name, gone):
    answer = webpush.send(push_service.subscribe(name), NOTE, topic="t")
    assert answer == PushAnswer(gone=gone)


def test_web_push_faults(push_service, webpush):
    with pytest.raises(RateLimited) as limited:
        webpush.send(push_service.subscribe("busy-di"), NOTE, topic="t")
    assert limited.value.wait == timedelta(seconds=1)
    with pytest.raises(TransientError, match="webpush: HTTP 503"):
        webpush.send(push_service.subscribe("fail-ed"), NOTE, topic="t")
    with pytest.raises(TransientError, match="webpush: no answer"):
        webpush.send(
            {**push_service.subscribe("ok-fi"), "endpoint": "http://127.0.0.1:9/x"}, NOTE, topic="t"
        )


def test_a_malformed_subscription_is_permanent(webpush):
    broken = {"endpoint": "https://push.example/x", "keys": {"p256dh": "bm9wZQ", "auth": "YQ"}}
    with pytest.raises(PermanentError):
        webpush.send(broken, NOTE, topic="t")


def test_fcm_gets_a_token_from_the_service_account_once_and_sends(fcm_service, fcm):
    before = fcm_service.token_requests
    first = fcm.send("ok-phone-1", NOTE, topic="t0pic")
    fcm.send("ok-phone-1", NOTE, topic="t0pic")
    assert fcm_service.token_requests == before + 1  # the token is kept until it expires
    assert first.message_id.startswith(f"projects/{fcm_service.project}/messages/")
    message = fcm_service.messages["ok-phone-1"][0]
    assert message["notification"] == {"title": "Shipped", "body": "Order 7 shipped"}
    assert message["data"] == {"url": "/orders/7", "tag": "push-1"}
    assert message["android"] == {"collapse_key": "t0pic"}
    assert message["apns"] == {"headers": {"apns-collapse-id": "t0pic"}}


def test_fcm_faults(fcm_service, fcm):
    assert fcm.send("unregistered-old", NOTE, topic="t") == PushAnswer(gone="UNREGISTERED")
    with pytest.raises(RateLimited):
        fcm.send("busy-phone", NOTE, topic="t")
    assert fcm.send("busy-phone", NOTE, topic="t").message_id  # the second is accepted
    with pytest.raises(TransientError, match="fcm: HTTP 503"):
        fcm.send("fail-phone", NOTE, topic="t")
    with pytest.raises(PermanentError, match="fcm: HTTP 400"):
        fcm.send("bad-phone", NOTE, topic="t")


def test_an_fcm_token_the_endpoint_refuses_is_transient(fcm_service):
    account = {**fcm_service.service_account(), "token_uri": f"{fcm_service.url}/nowhere"}
    backend = FcmBackend(service_account=account, base_url=fcm_service.url, timeout=2)
    with pytest.raises(TransientError, match="OAuth token"):
        backend.send("ok-phone-2", NOTE, topic="t")
    assert "ok-phone-2" not in fcm_service.messages


def test_vapid_keys_command_prints_a_usable_pair(push_service):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("vapid_keys", stdout=out)
    lines = dict(line.split("=", 1) for line in out.getvalue().split())
    service = PushService(vapid_public_key=lines["NOTIFLOW_VAPID_PUBLIC_KEY"])
    service.start()
    try:
        backend = WebPushBackend(
            private_key=lines["NOTIFLOW_VAPID_PRIVATE_KEY"],
            subject="mailto:o@example.com",
            ttl=5,
            timeout=2,
            allow_private=True,
        )
        backend.send(service.subscribe("ok-new"), NOTE, topic="t")
        assert json.loads(json.dumps(service.messages["ok-new"][0]["title"])) == "Shipped"
    finally:
        service.stop()
