"""Sends to report on, made in-process: a trigger and its ledger row as the engine leaves it."""

from __future__ import annotations

import base64
import datetime
import json
import time
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from django.conf import settings

from common.certificates import self_signed_certificate
from deliveries.sns import sns_canonical
from tests.factories import chain, email_node, sms_node
from tests.support.serving import serving_thread
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


# Amazon SNS's signatures (deliveries/sns.py): the tests' signing key, and its certificate served
# on loopback as SNS serves its own (NOTIFLOW_SNS_CERT_URL_PATTERN lets the tests' address pass).
SNS_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
SNS_CERT_URL_PATTERN = r"http://127\.0\.0\.1:\d+/[A-Za-z0-9_./-]+\.pem"


@cache
def sns_cert_url() -> str:
    """The URL of the tests' SNS signing certificate, on a loopback server started once."""
    pem = self_signed_certificate(
        SNS_KEY,
        "sns.us-east-1.amazonaws.com",
        valid_since=datetime.timedelta(days=1),
        valid_for=datetime.timedelta(days=30),
    )

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-pem-file")
            self.send_header("Content-Length", str(len(pem)))
            self.end_headers()
            self.wfile.write(pem)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    serving_thread(server).start()
    return f"http://127.0.0.1:{server.server_port}/SimpleNotificationService-test.pem"


def sns_signed(
    payload: dict, *, key: rsa.RSAPrivateKey = SNS_KEY, version: str = "1", url: str = ""
) -> dict:
    """`payload` as SNS sends it: with its SignatureVersion, SigningCertURL and Signature."""
    message = {**payload, "SignatureVersion": version, "SigningCertURL": url or sns_cert_url()}
    algorithm = hashes.SHA1() if version == "1" else hashes.SHA256()  # noqa: S303 (SNS's v1)
    signature = key.sign(sns_canonical(message), padding.PKCS1v15(), algorithm)
    return {**message, "Signature": base64.b64encode(signature).decode()}
