"""SMS backends: console, file, twilio, null; one per named provider (workers/providers), with
that provider's options."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import uuid
from functools import lru_cache
from typing import Protocol

import requests
from django.conf import settings
from django.utils import timezone

from workers.errors import PermanentError, TransientError
from workers.providers import Provider

logger = logging.getLogger(__name__)

# The backends an SMS provider may have (NOTIFLOW_PROVIDER_<NAME>_BACKEND, else its name).
SMS_BACKENDS = ("twilio", "console", "file", "null")


class SmsBackend(Protocol):
    def send(self, *, to: str, body: str, idempotency_key: str) -> str | None:
        """Deliver one SMS; return the provider's message id."""
        ...


def _local_message_id(idempotency_key: str) -> str:
    # Deterministic, so a re-send after a crash reports the same id.
    return f"sms-{uuid.uuid5(uuid.NAMESPACE_URL, idempotency_key)}"


class ConsoleBackend:
    def send(self, *, to: str, body: str, idempotency_key: str) -> str | None:
        logger.info("SMS to %s [%s]: %s", to, idempotency_key, body)
        return _local_message_id(idempotency_key)


class NullBackend:
    """Accepts and drops every message (benchmarks)."""

    def send(self, *, to: str, body: str, idempotency_key: str) -> str | None:
        return _local_message_id(idempotency_key)


class FileBackend:
    """Appends one JSON line per message to NOTIFLOW_SMS_FILE (an outbox for dev and tests)."""

    def __init__(self, path: str):
        self.path = path

    def send(self, *, to: str, body: str, idempotency_key: str) -> str | None:
        message_id = _local_message_id(idempotency_key)
        line = json.dumps(
            {
                "message_id": message_id,
                "to": to,
                "body": body,
                "idempotency_key": idempotency_key,
                "sent_at": timezone.now().isoformat(),
            }
        )
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        try:
            with open(self.path, "a", encoding="utf-8") as outbox:
                # Several worker processes append to one file: whole lines only.
                fcntl.flock(outbox, fcntl.LOCK_EX)
                outbox.write(line + "\n")
        except OSError as exc:
            raise TransientError(f"SMS outbox {self.path}: {exc}") from exc
        return message_id


class TwilioBackend:
    """Twilio's Messages API.

    The idempotency key travels as an `Idempotency-Key` header, as on every HTTP provider
    (docs/design/rules.md, rule 6), but Twilio does not document de-duplicating Messages requests by
    it: a resend from the crash window (the ledger's send_count > 1) may reach the phone twice.
    An answer that is 2xx but unreadable is a message Twilio accepted: it is recorded as sent,
    with no message id, never retried (a retry would send it again).
    """

    def __init__(
        self,
        *,
        base_url: str,
        account_sid: str,
        auth_token: str,
        from_number: str,
        status_callback: str = "",
    ):
        if not (account_sid and auth_token and from_number):
            raise PermanentError(
                "twilio: TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM needed"
            )
        self.url = f"{base_url.rstrip('/')}/2010-04-01/Accounts/{account_sid}/Messages.json"
        self.auth = (account_sid, auth_token)
        self.from_number = from_number
        # Where Twilio reports the message's delivery status (deliveries/), when the service
        # has a public URL.
        self.status_callback = status_callback
        self.session = requests.Session()

    def send(self, *, to: str, body: str, idempotency_key: str) -> str | None:
        data = {"To": to, "From": self.from_number, "Body": body}
        if self.status_callback:
            data["StatusCallback"] = self.status_callback
        try:
            response = self.session.post(
                self.url,
                data=data,
                auth=self.auth,
                headers={"Idempotency-Key": idempotency_key},
                timeout=settings.NOTIFLOW_SMS_TIMEOUT_SECONDS,
            )
        except requests.RequestException as exc:
            raise TransientError(f"twilio: {type(exc).__name__}: {exc}") from exc
        if response.status_code == 429 or response.status_code >= 500:
            raise TransientError(f"twilio: HTTP {response.status_code}: {response.text[:200]}")
        if response.status_code >= 400:
            raise PermanentError(f"twilio: HTTP {response.status_code}: {response.text[:200]}")
        try:
            return str(response.json()["sid"])
        except (ValueError, KeyError, TypeError):
            logger.warning(
                "twilio accepted %s (HTTP %s) with an unreadable answer %r: sent, id unknown",
                idempotency_key,
                response.status_code,
                response.text[:200],
            )
            return None


@lru_cache(maxsize=16)
def _backend(backend: str, options_json: str, public_url: str) -> SmsBackend:
    options = json.loads(options_json)
    if backend == "console":
        return ConsoleBackend()
    if backend == "null":
        return NullBackend()
    if backend == "file":
        return FileBackend(options.get("path") or settings.NOTIFLOW_SMS_FILE)
    if backend == "twilio":
        return TwilioBackend(
            base_url=options.get("base_url") or settings.NOTIFLOW_TWILIO_BASE_URL,
            account_sid=options.get("account_sid") or settings.TWILIO_ACCOUNT_SID,
            auth_token=options.get("auth_token") or settings.TWILIO_AUTH_TOKEN,
            from_number=options.get("from_number") or settings.TWILIO_FROM,
            status_callback=f"{public_url}/deliveries/twilio/status/" if public_url else "",
        )
    raise PermanentError(f"unknown SMS backend {backend!r} ({', '.join(SMS_BACKENDS)})")


def sms_backend(provider: Provider) -> SmsBackend:
    """The backend of an SMS provider, one instance per provider and options (a Twilio backend
    keeps its HTTP session)."""
    return _backend(
        provider.backend, json.dumps(provider.options, sort_keys=True), settings.NOTIFLOW_PUBLIC_URL
    )
