"""Standard Webhooks signatures, checked by the reference library; the SSRF rule for webhook
URLs, at creation and at send time; and the sender's timeout."""

from __future__ import annotations

import base64
import time

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from events.addresses import AddressRefused, is_public, url_check
from events.models import WebhookAttempt, WebhookEndpoint
from events.services.dispatcher import delivery_send
from events.services.endpoints import EndpointInvalid, endpoint_create, endpoint_ping
from events.services.sender import post_signed, webhook_headers
from events.signing import secret_generate, secret_key, signature
from tests.events.support import endpoint_on


def test_a_new_secret_is_whsec_and_at_least_24_random_bytes():
    secret = secret_generate()
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) >= 24
    assert secret != secret_generate()


@pytest.mark.parametrize(
    "bad", ["abc", "whsec_!!!", "whsec_" + base64.b64encode(b"short").decode()]
)
def test_a_malformed_secret_is_refused(bad):
    with pytest.raises(ValueError):
        secret_key(bad)


def test_the_reference_verifier_accepts_our_signature_and_refuses_a_changed_body():
    secret, body = secret_generate(), b'{"hello":"world"}'
    headers = webhook_headers(secret=secret, message_id="msg_1", body=body, now=time.time())
    assert Webhook(secret).verify(body, headers) == {"hello": "world"}
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(b'{"hello":"there"}', headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret_generate()).verify(body, headers)


def test_the_signature_is_the_standard_webhooks_example():
    # The example of the Standard Webhooks specification (spec/standard-webhooks.md).
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"test": 2432232314}'
    assert (
        signature(
            secret, message_id="msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp=1614265330, body=body
        )
        == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )


@pytest.mark.parametrize(
    "address, public",
    [
        ("8.8.8.8", True),
        ("2001:4860:4860::8888", True),
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),  # noqa: S104 (an address under test, nothing binds)
        ("224.0.0.1", False),
        ("::1", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("::ffff:127.0.0.1", False),
        ("::ffff:10.0.0.1", False),
    ],
)
def test_only_public_addresses_are_public(address, public):
    assert is_public(address) is public


@pytest.mark.parametrize(
    "url, reason",
    [
        ("ftp://example.com/", "http or https"),
        ("http:///path", "no host"),
        ("https://user:pw@127.0.0.1/", "user name or password"),
        ("http://127.0.0.1/", "non-public"),
        ("http://localhost:8000/", "non-public"),
        ("http://[::1]/", "non-public"),
        ("http://169.254.169.254/latest/meta-data", "non-public"),
        ("http://10.0.0.7/", "non-public"),
        ("http://0x7f000001/", "non-public"),
        ("http://no-such-host.invalid/", "does not resolve"),
    ],
)
def test_a_private_or_malformed_url_is_refused(settings, url, reason):
    settings.NOTIFLOW_WEBHOOK_ALLOW_PRIVATE = False
    with pytest.raises(AddressRefused, match=reason):
        url_check(url)


@pytest.mark.django_db
def test_an_endpoint_on_a_private_address_cannot_be_created(settings):
    settings.NOTIFLOW_WEBHOOK_ALLOW_PRIVATE = False
    with pytest.raises(EndpointInvalid) as refused:
        endpoint_create(url="http://127.0.0.1:8000/hook", events=["*"])
    assert "non-public" in refused.value.errors["url"]
    assert not WebhookEndpoint.objects.filter(url="http://127.0.0.1:8000/hook").exists()


@pytest.mark.django_db
def test_an_address_that_became_private_is_refused_at_send_time(settings, receiver):
    # Created while allowed (as if its name resolved to a public address then), sent after the
    # rule applies (as if the name now resolves to loopback): refused, nothing reaches it.
    endpoint, path = endpoint_on(receiver)
    event = endpoint_ping(endpoint)
    settings.NOTIFLOW_WEBHOOK_ALLOW_PRIVATE = False
    delivery = event.deliveries.get()
    assert delivery_send(delivery.pk, worker_id="test") == "pending"
    (attempt,) = WebhookAttempt.objects.filter(delivery_id=delivery.pk)
    assert attempt.status_code is None and attempt.error.startswith("refused: ")
    assert receiver.received(path) == []


def test_a_receiver_that_does_not_answer_times_out(settings, receiver):
    settings.NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS = 0.3
    started = time.monotonic()
    result = post_signed(
        url=receiver.url("/hang/timeout"), secret=secret_generate(), message_id="m", body=b"{}"
    )
    assert result.status_code is None and "timed out" in result.error.lower()
    assert time.monotonic() - started < 5
