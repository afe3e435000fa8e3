"""Verifying what Notiflow POSTs to a webhook endpoint: a Standard Webhooks signature
(https://www.standardwebhooks.com/) over the exact body, and a recent timestamp.

`verify(body, headers, secret)` returns the event (a CloudEvents 1.0 object: `id`, `type`
such as `notiflow.trigger.completed`, `subject` the run's id, `time`, `data`) or raises
`WebhookVerificationError`. Pass the raw body, before any JSON parsing: one byte changed is a
wrong signature. Delivery is at least once: de-duplicate by the event's `id` (the
`webhook-id` header)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

SECRET_PREFIX = "whsec_"  # noqa: S105 (the format's prefix, not a secret)
# How far a timestamp may be from now, either way, in seconds (the standard's five minutes).
TOLERANCE = 300


class WebhookVerificationError(Exception):
    """The request is not one Notiflow signed with this secret, or it is too old (or too far
    in the future) to trust: answer it 400 or 401 and do nothing."""


def verify(
    body: bytes | str,
    headers: Mapping[str, str],
    secret: str,
    *,
    tolerance: float = TOLERANCE,
    now: float | None = None,
) -> dict[str, Any]:
    """The event `body` carries, once its signature under `secret` (the endpoint's `whsec_…`)
    and its timestamp are checked. `headers` in any case (`Webhook-Id` or `webhook-id`)."""
    raw = body.encode() if isinstance(body, str) else bytes(body)
    lowered = {name.lower(): value for name, value in headers.items()}
    message_id = _header(lowered, "webhook-id")
    stamp = _header(lowered, "webhook-timestamp")
    signatures = _header(lowered, "webhook-signature")
    try:
        sent_at = int(stamp)
    except ValueError:
        raise WebhookVerificationError("webhook-timestamp is not a number of seconds") from None
    current = time.time() if now is None else now
    if abs(current - sent_at) > tolerance:
        raise WebhookVerificationError(f"webhook-timestamp is more than {tolerance:g} s from now")
    signed = f"{message_id}.{sent_at}.".encode() + raw
    expected = base64.b64encode(hmac.new(_key(secret), signed, hashlib.sha256).digest())
    given = [part.partition(",") for part in signatures.split()]
    if not any(
        version == "v1" and hmac.compare_digest(expected, value.encode())
        for version, _, value in given
    ):
        raise WebhookVerificationError("no v1 signature in webhook-signature matches")
    try:
        event = json.loads(raw)
    except ValueError:
        raise WebhookVerificationError("the body is not JSON") from None
    if not isinstance(event, dict):
        raise WebhookVerificationError("the body is not a JSON object")
    return event


def _header(headers: Mapping[str, str], name: str) -> str:
    value = headers.get(name)
    if not value:
        raise WebhookVerificationError(f"no {name} header")
    return value


def _key(secret: str) -> bytes:
    encoded = secret[len(SECRET_PREFIX) :] if secret.startswith(SECRET_PREFIX) else secret
    try:
        return base64.b64decode(encoded, validate=True)
    except binascii.Error:
        raise ValueError(f"not a webhook secret: {SECRET_PREFIX} and base64 expected") from None
