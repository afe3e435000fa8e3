"""Recipient tokens (docs/security/recipients.md, "The recipient token").

A recipient's browser reads that recipient's inbox, and only theirs, with
`Authorization: Recipient <key>:<token>`, where the token is an HMAC-SHA256 of the key under the
inbox secret (NOTIFLOW_INBOX_SECRET; when unset, one derived from DJANGO_SECRET_KEY for this use
alone). The client's backend computes it (or asks POST /api/recipients/<key>/inbox-token/), so
checking one costs no query: a wrong token is refused before the database is touched. A token does
not expire: changing the secret revokes every token at once.

A token also carries its recipient's generation (`<generation>.<hmac>`; generation 0, the
first, is the bare HMAC that tokens were before generations): erasing the person or rotating
their tokens raises it (inbox/services.py), and a token of an earlier generation is refused.
The signature is checked first, without a query; the generation is then compared with the
current one, read in one primary-key lookup (inbox/auth.py).
"""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings
from django.utils.crypto import salted_hmac

from common.credentials import secret_matches

_PURPOSE = b"notiflow.inbox.recipient:"
# From generation 1 on: `<generation>:<key>` under a purpose of its own, so that no key's token
# of one generation is another key's of another, whatever the key holds.
_PURPOSE_GENERATIONS = b"notiflow.inbox.recipient.generation:"
_GENERATION_PURPOSE = b"notiflow.inbox.generation:"


def inbox_secret() -> bytes:
    """The secret tokens are the HMAC under, read on each call (tests change it)."""
    configured = settings.NOTIFLOW_INBOX_SECRET
    if configured:
        return configured.encode()
    return salted_hmac("notiflow.inbox.secret", "inbox", algorithm="sha256").hexdigest().encode()


def recipient_token(recipient_key: str, generation: int = 0) -> str:
    """The token of recipient `recipient_key` at `generation`: 64 hex digits, after
    `<generation>.` from generation 1 on."""
    if not generation:
        message = _PURPOSE + recipient_key.encode()
        return hmac.new(inbox_secret(), message, hashlib.sha256).hexdigest()
    message = _PURPOSE_GENERATIONS + f"{generation}:{recipient_key}".encode()
    return f"{generation}.{hmac.new(inbox_secret(), message, hashlib.sha256).hexdigest()}"


def token_generation(token: str) -> int | None:
    """The generation `token` claims (its signature not checked: recipient_token_valid), None
    when it has not a token's shape."""
    claimed, dot, _ = token.rpartition(".")
    if not dot:
        return 0
    shaped = claimed.isascii() and claimed.isdigit() and claimed[0] != "0" and len(claimed) < 19
    return int(claimed) if shaped else None


def recipient_token_valid(recipient_key: str, token: str, generation: int = 0) -> bool:
    """Whether `token` is `recipient_key`'s at `generation`, compared in constant time."""
    return secret_matches(token, recipient_token(recipient_key, generation))


def generation_digest(recipient_key: str) -> str:
    """What TokenGeneration keys a recipient's row by: an HMAC of the key under the inbox
    secret, so the row names nobody (64 hex digits)."""
    message = _GENERATION_PURPOSE + recipient_key.encode()
    return hmac.new(inbox_secret(), message, hashlib.sha256).hexdigest()
