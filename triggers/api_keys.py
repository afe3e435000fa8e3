"""API keys' lifecycle: create, change, verify (with the per-process cache of keys found
active), revoke. A key is shown once and stored hashed; the scopes and workflow limits it carries
are enforced by triggers/auth.py and common/scopes.py (docs/security/keys.md)."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from triggers.models import ApiKey, ApiKeyScope
from workflows.routing import NAME_RULE, key_validator


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ApiKeyNameTaken(ValueError):
    """Another API key has this name (names are unique)."""


def api_key_limits(
    *, scope: str, workflows: Iterable[str], expires_at: datetime | None
) -> list[str]:
    """The checked workflow list of a key with this scope and expiry; ValueError saying what is
    wrong otherwise."""
    if scope not in ApiKeyScope.values:
        raise ValueError(f"scope must be one of {', '.join(ApiKeyScope.values)} (not {scope!r})")
    keys = list(dict.fromkeys(w.strip() for w in workflows))
    for key in keys:
        try:
            key_validator(key)
        except ValidationError:
            raise ValueError(f"{key!r} is not a workflow key: {NAME_RULE}") from None
    if keys and scope == ApiKeyScope.ADMIN:
        raise ValueError(
            "an admin key cannot be limited to workflows (it manages webhooks and workers, "
            "which span every workflow): give the client a trigger key"
        )
    if expires_at is not None and expires_at <= timezone.now():
        raise ValueError(f"the expiry {expires_at.isoformat()} is not in the future")
    return keys


def api_key_create(
    *,
    name: str,
    scope: str = ApiKeyScope.TRIGGER,
    workflows: Iterable[str] = (),
    expires_at: datetime | None = None,
) -> tuple[ApiKey, str]:
    """Create an API key named `name` (stripped); returns (row, the key). The key is shown once
    and stored hashed. `scope` is `trigger` (the default) or `admin`; `workflows` limits a
    trigger key to those workflow keys (empty: every workflow); `expires_at`, when given, must
    be in the future. Raises ValueError for an empty name or a wrong scope, workflow key or
    expiry, ApiKeyNameTaken for a name in use (decided by the unique constraint, so two
    concurrent creations cannot both get it).

    Keys carry 256 bits of randomness, so a plain SHA-256 is enough (no slow KDF needed).
    """
    name = name.strip()
    if not name:
        raise ValueError("an API key needs a name")
    keys = api_key_limits(scope=scope, workflows=workflows, expires_at=expires_at)
    key = "nf_" + secrets.token_urlsafe(32)
    try:
        with transaction.atomic():
            api_key = ApiKey.objects.create(
                name=name,
                prefix=key[:10],
                key_hash=_hash(key),
                scope=scope,
                workflows=keys,
                expires_at=expires_at,
            )
    except IntegrityError:
        if ApiKey.objects.filter(name=name).exists():
            raise ApiKeyNameTaken(
                f"an API key named {name!r} already exists: choose another name"
            ) from None
        raise
    return api_key, key


def api_key_update(
    *, api_key: ApiKey, scope: str, workflows: Iterable[str], expires_at: datetime | None
) -> None:
    """Change what a key may do and until when (the admin's key page). Like a revocation, it
    applies at once in this process and within NOTIFLOW_API_KEY_CACHE_SECONDS in the others.
    An expiry in the past is allowed here: it ends the key now, as a revocation would."""
    keys = api_key_limits(scope=scope, workflows=workflows, expires_at=None)
    api_key.scope, api_key.workflows, api_key.expires_at = scope, keys, expires_at
    api_key.save(update_fields=["scope", "workflows", "expires_at"])
    _api_keys_seen.pop(api_key.key_hash, None)


class ApiKeyRefused(Exception):
    """The key is unknown, revoked or expired; the message says which (to its holder only)."""


# Keys found active, per process, for NOTIFLOW_API_KEY_CACHE_SECONDS: most requests then check
# their key without a query. Only hits are kept (a wrong key always queries, a new key works at
# once); a revoked key stops working at once in the revoking process, within the TTL elsewhere.
# An expiry needs no query: every hit compares the cached row's expires_at with the clock, so a
# key is refused from the moment it expires, cached or not.
_api_keys_seen: dict[str, tuple[float, ApiKey]] = {}
_API_KEYS_SEEN_MAX = 1000


def api_key_verify(*, key: str) -> ApiKey:
    """The active ApiKey for `key`; ApiKeyRefused saying why there is none."""
    digest = _hash(key)
    now = time.monotonic()
    seen = _api_keys_seen.get(digest)
    if seen is not None and seen[0] > now:
        api_key = seen[1]
    else:
        found = ApiKey.objects.filter(key_hash=digest).first()
        if found is None:
            raise ApiKeyRefused("invalid API key")
        if found.revoked_at is not None:
            raise ApiKeyRefused("this API key was revoked")
        api_key = found
        ttl = settings.NOTIFLOW_API_KEY_CACHE_SECONDS
        if ttl > 0:
            if len(_api_keys_seen) >= _API_KEYS_SEEN_MAX:
                _api_keys_seen.clear()
            _api_keys_seen[digest] = (now + ttl, api_key)
    if api_key.expires_at is not None and api_key.expired(timezone.now()):
        _api_keys_seen.pop(digest, None)
        raise ApiKeyRefused("this API key has expired")
    return api_key


def api_key_authenticate(*, key: str) -> ApiKey | None:
    """The active ApiKey for `key`, or None (see _api_keys_seen for how long a revocation takes)."""
    try:
        return api_key_verify(key=key)
    except ApiKeyRefused:
        return None


def api_key_revoke(*, api_key: ApiKey) -> bool:
    """Revoke the key now: refused at once by this process, within NOTIFLOW_API_KEY_CACHE_SECONDS
    by the others. One conditional UPDATE, so a key already revoked keeps its revocation time;
    returns whether this call revoked it (and then sets `api_key.revoked_at`).
    """
    now = timezone.now()
    active = ApiKey.objects.filter(pk=api_key.pk, revoked_at__isnull=True)
    revoked = active.update(revoked_at=now) == 1
    if revoked:
        api_key.revoked_at = now
    _api_keys_seen.pop(api_key.key_hash, None)
    return revoked
