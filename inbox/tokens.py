"""Recipient tokens (docs/security.md, "The recipient token").

A recipient's browser reads that recipient's inbox, and only theirs, with
`Authorization: Recipient <key>:<token>`, where the token is an HMAC-SHA256 of the key under the
inbox secret (NOTIFLOW_INBOX_SECRET; when unset, one derived from DJANGO_SECRET_KEY for this use
alone). The client's backend computes it (or asks POST /api/recipients/<key>/inbox-token/), so
checking one costs no query: a wrong token is refused before the database is touched. A token does
not expire: changing the secret revokes every token at once.
"""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings
from django.utils.crypto import salted_hmac

from common.credentials import secret_matches

_PURPOSE = b"notiflow.inbox.recipient:"


def inbox_secret() -> bytes:
    """The secret tokens are the HMAC under, read on each call (tests change it)."""
    configured = settings.NOTIFLOW_INBOX_SECRET
    if configured:
        return configured.encode()
    return salted_hmac("notiflow.inbox.secret", "inbox", algorithm="sha256").hexdigest().encode()


def recipient_token(recipient_key: str) -> str:
    """The token of recipient `recipient_key` (64 hex digits)."""
    message = _PURPOSE + recipient_key.encode()
    return hmac.new(inbox_secret(), message, hashlib.sha256).hexdigest()


def recipient_token_valid(recipient_key: str, token: str) -> bool:
    """Whether `token` is `recipient_key`'s, compared in constant time."""
    return secret_matches(token, recipient_token(recipient_key))
