"""How the feed API knows whose inbox it serves: `Authorization: Recipient <key>:<token>`
(inbox/tokens.py), and the per-recipient rate limit (docs/security/recipients.md, "The recipient token").

The reader is the recipient and nothing more: no API key, no scope, no other recipient. The
views of inbox/api.py take this authentication alone, so an API key is refused there and a
recipient token everywhere else.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.permissions import BasePermission
from rest_framework.throttling import BaseThrottle

from common.credentials import CredentialsMalformed, authorization_credentials
from common.throttling import bucket_wait, parse_rate
from inbox.services import token_generation_current
from inbox.tokens import recipient_token_valid, token_generation
from recipients.models import KEY_MAX_LENGTH

KEYWORD = "Recipient"


@dataclass(frozen=True)
class InboxReader:
    """The authenticated caller of the feed API: one recipient, by key."""

    recipient: str
    is_authenticated: bool = True

    def __str__(self) -> str:
        return f"recipient:{self.recipient}"


class RecipientTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: Any) -> tuple[InboxReader, None]:
        try:
            credentials = authorization_credentials(request, KEYWORD) or ""
        except CredentialsMalformed:
            credentials = ""
        key, colon, token = credentials.rpartition(":")
        if not colon or not key or not token:
            raise exceptions.AuthenticationFailed(
                "Authorization must be 'Recipient <recipient id>:<token>'"
            )
        generation = token_generation(token)
        if (
            len(key) > KEY_MAX_LENGTH
            or generation is None
            or not recipient_token_valid(key, token, generation)
        ):
            raise exceptions.AuthenticationFailed("the recipient token is not this recipient's")
        # Signed, so read the generation now (not before: a forged token costs no query).
        if generation != token_generation_current(key):
            raise exceptions.AuthenticationFailed(
                "the recipient token was revoked: the recipient's tokens were rotated, or the "
                "recipient erased; ask for a new one"
            )
        return InboxReader(recipient=key), None

    def authenticate_header(self, request: Any) -> str:
        return KEYWORD  # a 401, not a 403, when the header is missing


class IsRecipient(BasePermission):
    def has_permission(self, request: Any, view: Any) -> bool:
        return isinstance(request.user, InboxReader)


class RecipientRateThrottle(BaseThrottle):
    """NOTIFLOW_RATE_LIMIT_INBOX per recipient, on the API keys' Redis buckets (common/throttling.py)."""

    def allow_request(self, request: Any, view: Any) -> bool:
        rate = settings.NOTIFLOW_RATE_LIMIT_INBOX
        limit = parse_rate(rate)
        if limit is None or not isinstance(request.user, InboxReader):
            return True
        digest = hashlib.sha256(request.user.recipient.encode()).hexdigest()[:32]
        seconds = bucket_wait(bucket=f"notiflow:rate:inbox:{digest}", limit=limit)
        if seconds <= 0:
            return True
        raise exceptions.Throttled(
            wait=max(1, math.ceil(seconds)),
            detail=f"rate limit of {rate.strip()} for this recipient's inbox requests exceeded.",
        )


class RecipientTokenScheme(OpenApiAuthenticationExtension):
    """The schema's word for the feed API's authentication."""

    target_class = "inbox.auth.RecipientTokenAuthentication"
    name = "RecipientToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Recipient <recipient id>:<token>`: the token is the HMAC-SHA256 of "
            "the recipient id under the inbox secret, which the client's backend gets from POST "
            "/api/recipients/{id}/inbox-token/ (or computes, while the recipient's tokens were "
            "never rotated). It reads and marks that recipient's in-app messages and nothing "
            "else; a wrong or revoked token is 401.",
        }
