"""Amazon SNS message signatures, for Amazon SES's reports (docs/security/providers.md, "Provider reports").

django-anymail 15 checks the basic auth of an SNS post but not SNS's own signature (its source:
"Future: Verify SNS message signature"). This checks it as AWS documents it
(https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html): the
certificate at `SigningCertURL`, which must be an `https://sns.<region>.amazonaws.com/….pem`
address (NOTIFLOW_SNS_CERT_URL_PATTERN), signed the message's canonical fields with
`SignatureVersion` 1 (SHA1) or 2 (SHA256). Certificates are kept per process once fetched.

A signature proves the message came from SNS, not that it was meant for this service (anyone's
topic can post here); the basic auth, which only the subscription's URL carries, proves that.
"""

from __future__ import annotations

import base64
import binascii
import re
from functools import lru_cache
from typing import Any

import requests
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from django.conf import settings

HASHES = {"1": hashes.SHA1, "2": hashes.SHA256}
# The fields each message type signs, in this order (those absent are left out).
SIGNED_FIELDS = {
    "Notification": ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"],
    "SubscriptionConfirmation": [
        "Message",
        "MessageId",
        "SubscribeURL",
        "Timestamp",
        "Token",
        "TopicArn",
        "Type",
    ],
}
SIGNED_FIELDS["UnsubscribeConfirmation"] = SIGNED_FIELDS["SubscriptionConfirmation"]
CERT_TIMEOUT_SECONDS = 5


class SnsSignatureRefused(ValueError):
    """An SNS message without a valid signature; the message says why."""


def sns_canonical(message: dict[str, Any]) -> bytes:
    """The bytes SNS signs of `message`."""
    fields = SIGNED_FIELDS.get(str(message.get("Type")))
    if fields is None:
        raise SnsSignatureRefused(f"unknown SNS message type {message.get('Type')!r}")
    text = "".join(f"{name}\n{message[name]}\n" for name in fields if name in message)
    return text.encode()


@lru_cache(maxsize=16)
def _certificate_key(url: str) -> rsa.RSAPublicKey:
    response = requests.get(url, timeout=CERT_TIMEOUT_SECONDS, allow_redirects=False)
    response.raise_for_status()
    key = x509.load_pem_x509_certificate(response.content).public_key()
    if not isinstance(key, rsa.RSAPublicKey):
        raise SnsSignatureRefused("the SNS signing certificate's key is not RSA")
    return key


def sns_verify(message: Any) -> None:
    """SnsSignatureRefused unless `message` (an SNS post's parsed body) carries SNS's valid
    signature from a certificate at an SNS address. A certificate that cannot be fetched raises
    requests' error (the caller answers 5xx: SNS retries)."""
    if not isinstance(message, dict):
        raise SnsSignatureRefused("not an SNS message")
    algorithm = HASHES.get(str(message.get("SignatureVersion")))
    if algorithm is None:
        raise SnsSignatureRefused(f"SignatureVersion {message.get('SignatureVersion')!r}")
    url = str(message.get("SigningCertURL") or "")
    if not re.fullmatch(settings.NOTIFLOW_SNS_CERT_URL_PATTERN, url):
        raise SnsSignatureRefused(f"SigningCertURL {url!r} is not an SNS address")
    try:
        signature = base64.b64decode(str(message.get("Signature") or ""), validate=True)
    except binascii.Error as exc:
        raise SnsSignatureRefused("the Signature is not base64") from exc
    try:
        _certificate_key(url).verify(
            signature, sns_canonical(message), padding.PKCS1v15(), algorithm()
        )
    except InvalidSignature as exc:
        raise SnsSignatureRefused("the signature does not match") from exc
