"""Sends to report on, made in-process: a trigger and its ledger row as the engine leaves it."""

from __future__ import annotations

import base64
import json
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings

from tests.factories import chain, email_node, sms_node
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workers.models import SendLedger


def sent(
    provider_message_id: str, *, to: str, provider: str = "ses", channel: str = "email"
) -> TriggerInstance:
    """A trigger whose one send node was sent to `to` (the engine's `to`: one or more
    comma-separated recipients), with the provider's message id recorded."""
    node = email_node("mail") if channel == "email" else sms_node("mail")
    trigger = due_trigger(chain(node))
    SendLedger.objects.create(
        trigger=trigger,
        node_id="mail",
        idempotency_key=f"{trigger.pk}:mail",
        channel=channel,
        status="sent",
        result={"to": to, "provider": provider, "provider_message_id": provider_message_id},
        provider=provider,
        provider_message_id=provider_message_id,
        providers=[provider],
    )
    return trigger


def basic_auth() -> dict[str, str]:
    secret = settings.ANYMAIL["WEBHOOK_SECRET"]
    return {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(secret.encode()).decode()}


# SendGrid's signed event webhook (ECDSA P-256 over the timestamp and the body): the tests' key
# pair, whose public half is what ANYMAIL_SENDGRID_TRACKING_WEBHOOK_VERIFICATION_KEY holds.
SENDGRID_KEY = ec.generate_private_key(ec.SECP256R1())
SENDGRID_PUBLIC_KEY = base64.b64encode(
    SENDGRID_KEY.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
).decode()


def sendgrid_signed(events: list[dict], *, key: ec.EllipticCurvePrivateKey = SENDGRID_KEY) -> dict:
    """The body and headers of a SendGrid event webhook post signed with `key`."""
    body = json.dumps(events).encode()
    timestamp = str(int(time.time()))
    signature = key.sign(timestamp.encode() + body, ec.ECDSA(hashes.SHA256()))
    return {
        "data": body,
        "content_type": "application/json",
        "HTTP_X_TWILIO_EMAIL_EVENT_WEBHOOK_SIGNATURE": base64.b64encode(signature).decode(),
        "HTTP_X_TWILIO_EMAIL_EVENT_WEBHOOK_TIMESTAMP": timestamp,
    }
