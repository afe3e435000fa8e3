"""Push providers: web push (RFC 8030) to a browser's subscription, encrypted per RFC 8291 and
signed with VAPID (RFC 8292) through pywebpush; and mobile push through FCM HTTP v1 with a
service account's OAuth 2 token (google-auth). iOS devices are reached through FCM's APNs
bridge: an app registers with FCM and its token is an FCM token like any other.

Each backend sends one message to one address and answers a PushAnswer: accepted (with the push
service's id for it) or gone (the address no longer exists: web push 404/410, FCM
`UNREGISTERED`), which the channel removes from the recipient. Everything else raises: 429 with
Retry-After is RateLimited (the step waits for it without an attempt), 429 without it, 5xx and
transport errors TransientError, any other 3xx or 4xx PermanentError. An error names the status
and a fixed phrase, never a byte of the answer's body (docs/security/providers.md, "Web push endpoints").

A web push endpoint is an address a recipient supplied: the request goes out under the rules of
workers/providers/outgoing.py (address checked and pinned, no redirect, one deadline, no body
read), holding one of the worker's push slots (workers/services/push_slots.py). FCM's endpoint
is the operator's (NOTIFLOW_FCM_BASE_URL); its requests follow no redirect either.
"""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from py_vapid import VapidException
from pywebpush import WebPushException, webpush
from requests.structures import CaseInsensitiveDict

from workers.errors import PermanentError, TransientError
from workers.providers import provider_wait
from workers.providers.outgoing import NO_ANSWER, recipient_url_post
from workers.services.push_slots import push_slot

# FCM HTTP v1's scope for sending (https://firebase.google.com/docs/cloud-messaging/auth-server).
FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
# FCM v1's documented error codes (ErrorCode): an error names one of these, never FCM's text.
FCM_ERROR_CODES = {
    "UNSPECIFIED_ERROR",
    "INVALID_ARGUMENT",
    "UNREGISTERED",
    "SENDER_ID_MISMATCH",
    "QUOTA_EXCEEDED",
    "UNAVAILABLE",
    "INTERNAL",
    "THIRD_PARTY_AUTH_ERROR",
}


def vapid_key_pair() -> tuple[str, str]:
    """A new VAPID key pair (P-256): the private key as its raw 32-byte number and the public
    key as its uncompressed point, both base64url without padding: the forms
    NOTIFLOW_VAPID_PRIVATE_KEY takes and a browser's `applicationServerKey` wants."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return _b64url(private), _b64url(public)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@dataclass(frozen=True)
class PushAnswer:
    """A push service's answer to one message for one address."""

    message_id: str = ""  # the service's id for it (web push: Location; FCM: the message name)
    gone: str = ""  # why the address no longer exists; empty when the message was accepted


def _refusal(provider: str, response: requests.Response, code: str = "") -> Exception:
    """The error an unaccepted answer raises (rule 7): its status (and FCM's error code), no
    more of it."""
    what = f"{provider}: HTTP {response.status_code}" + (f" ({code})" if code else "")
    if 300 <= response.status_code < 400:
        what += " (redirects are not followed)"
    if response.status_code == 429:
        limited = provider_wait(provider, response.headers.get("Retry-After"))
        if limited is not None:
            return limited
    if response.status_code == 429 or response.status_code >= 500:
        return TransientError(what)
    return PermanentError(what)


class _OutgoingSession(requests.Session):
    """What pywebpush posts through (its `requests_session`): the request goes out by
    recipient_url_post, holding a push slot, and comes back as a Response of status and headers
    with an empty body. pywebpush calls `post(endpoint, timeout=, data=, headers=)` and reads
    `status_code`, `reason`, `text` (docs/upgrading.md)."""

    def __init__(self, *, allow_private: bool, timeout: float) -> None:
        super().__init__()
        self.allow_private = allow_private
        self.deadline_seconds = timeout

    def post(  # type: ignore[override]
        self, url: str, data: bytes | None = None, **kwargs: Any
    ) -> requests.Response:
        headers = {name: str(value) for name, value in (kwargs.get("headers") or {}).items()}
        with push_slot("webpush"):
            answer = recipient_url_post(
                url,
                what="webpush",
                allow_private=self.allow_private,
                body=data or b"",
                headers=headers,
                seconds=self.deadline_seconds,
            )
        response = requests.Response()
        response.status_code, response.url, response.reason = answer.status, url, ""
        response.headers = CaseInsensitiveDict(answer.headers)
        response._content = b""  # never read (workers/providers/outgoing.py)
        return response


class WebPushBackend:
    """Web push through pywebpush: the payload is encrypted (aes128gcm) to the subscription's
    keys and the request carries a VAPID JWT signed with NOTIFLOW_VAPID_PRIVATE_KEY."""

    def __init__(
        self,
        *,
        private_key: str,
        subject: str,
        ttl: int,
        timeout: float,
        allow_private: bool,
    ):
        if not (private_key and subject):
            raise PermanentError("webpush: NOTIFLOW_VAPID_PRIVATE_KEY and _SUBJECT needed")
        self.private_key = private_key
        self.subject = subject
        self.ttl = ttl
        self.session = _OutgoingSession(allow_private=allow_private, timeout=timeout)

    def send(
        self, subscription: dict[str, Any], payload: dict[str, Any], *, topic: str
    ) -> PushAnswer:
        """`topic` (RFC 8030 §5.4) lets the push service replace a copy not yet delivered: a
        resend from the crash window replaces the first instead of showing twice."""
        try:
            response = webpush(
                subscription_info=subscription,
                data=json.dumps(payload),
                vapid_private_key=self.private_key,
                vapid_claims={"sub": self.subject},
                ttl=self.ttl,
                headers={"Topic": topic, "Urgency": "normal"},
                requests_session=self.session,
            )
        except WebPushException as exc:
            if exc.response is None:  # refused before sending: the subscription is malformed
                raise PermanentError(f"webpush: {exc.message}") from exc
            response = exc.response
        except (ValueError, TypeError, KeyError, VapidException) as exc:
            # A malformed subscription or key; VAPID cannot name an IPv6 literal's origin.
            raise PermanentError(f"webpush: {type(exc).__name__}: {exc}") from exc
        assert isinstance(response, requests.Response)  # not curl mode
        if response.status_code in (404, 410):
            return PushAnswer(gone=f"HTTP {response.status_code}")
        if response.status_code >= 300:
            raise _refusal("webpush", response)
        return PushAnswer(message_id=response.headers.get("Location", ""))


class FcmBackend:
    """FCM HTTP v1: `POST {base_url}/v1/projects/<project>/messages:send` with a bearer token
    the service account's key obtains from its `token_uri` (refreshed when it expires)."""

    def __init__(self, *, service_account: dict[str, Any], base_url: str, timeout: float):
        from google.oauth2 import service_account as google_service_account

        try:
            self.credentials = google_service_account.Credentials.from_service_account_info(
                service_account, scopes=[FCM_SCOPE]
            )
        except (ValueError, KeyError) as exc:
            raise PermanentError(f"fcm: the service account cannot be used: {exc}") from exc
        project = service_account.get("project_id", "")
        self.url = f"{base_url.rstrip('/')}/v1/projects/{project}/messages:send"
        self.timeout = timeout
        self.session = requests.Session()
        self.lock = threading.Lock()  # one token refresh at a time per process

    def _token(self) -> str:
        from google.auth.exceptions import GoogleAuthError
        from google.auth.transport.requests import Request

        with self.lock:
            if not self.credentials.valid:
                try:
                    self.credentials.refresh(Request(self.session))
                except GoogleAuthError:  # its text quotes the token endpoint's answer
                    raise TransientError("fcm: OAuth token: refused or no answer") from None
            return str(self.credentials.token)

    def send(self, token: str, payload: dict[str, Any], *, topic: str) -> PushAnswer:
        """`topic` becomes the collapse key (Android) and apns-collapse-id (iOS): a resend from
        the crash window replaces an undelivered first copy."""
        message: dict[str, Any] = {
            "token": token,
            "notification": {"title": payload["title"], "body": payload["body"]},
            "data": {k: str(v) for k, v in payload.items() if k not in ("title", "body")},
            "android": {"collapse_key": topic},
            "apns": {"headers": {"apns-collapse-id": topic}},
        }
        if payload.get("icon"):
            message["notification"]["image"] = payload["icon"]
        try:
            response = self.session.post(
                self.url,
                json={"message": message},
                headers={"Authorization": f"Bearer {self._token()}"},
                timeout=self.timeout,
                allow_redirects=False,
            )
        except requests.RequestException:
            raise TransientError(f"fcm: {NO_ANSWER}") from None
        if response.status_code < 300:
            return PushAnswer(message_id=str(_json(response).get("name", ""))[:255])
        code = _fcm_error_code(response)
        if code == "UNREGISTERED":
            return PushAnswer(gone="UNREGISTERED")
        raise _refusal("fcm", response, code)


def _json(response: requests.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _fcm_error_code(response: requests.Response) -> str:
    """FCM v1's errorCode (`UNREGISTERED`, `QUOTA_EXCEEDED`, ...) from the error's details."""
    details = (_json(response).get("error") or {}).get("details") or []
    for detail in details if isinstance(details, list) else []:
        if isinstance(detail, dict) and detail.get("errorCode") in FCM_ERROR_CODES:
            return str(detail["errorCode"])
    return ""


@lru_cache(maxsize=4)
def _webpush(
    private_key: str, subject: str, ttl: int, timeout: float, allow_private: bool
) -> WebPushBackend:
    return WebPushBackend(
        private_key=private_key,
        subject=subject,
        ttl=ttl,
        timeout=timeout,
        allow_private=allow_private,
    )


def webpush_backend() -> WebPushBackend:
    return _webpush(
        settings.NOTIFLOW_VAPID_PRIVATE_KEY,
        settings.NOTIFLOW_VAPID_SUBJECT,
        settings.NOTIFLOW_PUSH_TTL_SECONDS,
        settings.NOTIFLOW_PUSH_TIMEOUT_SECONDS,
        settings.NOTIFLOW_PUSH_ALLOW_PRIVATE,
    )


@lru_cache(maxsize=4)
def _fcm(service_account_json: str, base_url: str, timeout: float) -> FcmBackend:
    return FcmBackend(
        service_account=json.loads(service_account_json), base_url=base_url, timeout=timeout
    )


def service_account_info() -> dict[str, Any]:
    """The FCM service account: NOTIFLOW_FCM_SERVICE_ACCOUNT_JSON, else the file
    NOTIFLOW_FCM_SERVICE_ACCOUNT_FILE names; {} when neither is set."""
    text = settings.NOTIFLOW_FCM_SERVICE_ACCOUNT_JSON
    if not text and settings.NOTIFLOW_FCM_SERVICE_ACCOUNT_FILE:
        with open(settings.NOTIFLOW_FCM_SERVICE_ACCOUNT_FILE, encoding="utf-8") as file:
            text = file.read()
    return json.loads(text) if text else {}


def fcm_backend() -> FcmBackend:
    return _fcm(
        json.dumps(service_account_info(), sort_keys=True),
        settings.NOTIFLOW_FCM_BASE_URL,
        settings.NOTIFLOW_PUSH_TIMEOUT_SECONDS,
    )
