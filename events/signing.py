"""Standard Webhooks signatures (https://www.standardwebhooks.com/): the secret's format and the
signature of one message, in one place.

A secret is `whsec_` + base64 of 24 or more random bytes; the key is those bytes. A message is
signed as `v1,` + base64(HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{body}")).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

SECRET_PREFIX = "whsec_"  # noqa: S105 (the format's prefix, not a secret)
SECRET_BYTES = 32
MIN_SECRET_BYTES = 24


def secret_generate() -> str:
    """A new endpoint secret."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def secret_key(secret: str) -> bytes:
    """The HMAC key of `secret`. ValueError when it is not a Standard Webhooks secret."""
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError(f"a webhook secret starts with {SECRET_PREFIX!r}")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
    except binascii.Error as exc:
        raise ValueError("a webhook secret is base64 after its prefix") from exc
    if len(key) < MIN_SECRET_BYTES:
        raise ValueError(f"a webhook secret holds at least {MIN_SECRET_BYTES} bytes")
    return key


def signature(secret: str, *, message_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` header of `body` sent as `message_id` at `timestamp`."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def secret_hint(secret: str) -> str:
    """What the API shows of a secret after it was created: its prefix and last four characters."""
    return f"{SECRET_PREFIX}…{secret[-4:]}"
