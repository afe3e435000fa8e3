"""Trigger intake (the inbox) and API keys."""

from __future__ import annotations

import hashlib
import json
import secrets
import time
import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from notiflow.db import fetchone_prepared
from registry.sql import live_within_seconds
from triggers.dispatch import Nudge, trigger_enqueue_on_commit
from triggers.models import ApiKey, ApiKeyScope, TriggerInstance
from triggers.sql import INTAKE_SQL, INTAKE_WORKFLOW_COLUMNS, STATUS_PARAMS
from triggers.state import trigger_from_row
from workflows.models import Workflow, WorkflowVersion
from workflows.routing import NAME_RULE, PRIORITY_MAX, PRIORITY_MIN, key_validator

MAX_IDEMPOTENCY_KEY_LENGTH = 255


class TriggerRejected(Exception):
    """The trigger request is invalid; `field` names the culprit. Nothing was saved."""

    def __init__(self, field: str, message: str, *, status_code: int = 400):
        super().__init__(message)
        self.field = field
        self.message = message
        self.status_code = status_code


def trigger_create(
    *,
    workflow_key: str,
    idempotency_key: str,
    payload: Any,
    actor: str = "",
    priority: int | None = None,
) -> tuple[TriggerInstance, bool]:
    """Insert the trigger for (workflow, idempotency_key), or return the one that already exists.

    The inbox: a single INSERT ... ON CONFLICT DO NOTHING decides, so any number of concurrent
    requests with the same key create exactly one row (there is no read-then-act window). A new
    trigger is `enqueued` at the entry node of the workflow's current version (read by the same
    statement), due now; it and its event are written by that statement, and its first nudge is
    published after commit (at once in autocommit, or when the caller's transaction commits).
    Its priority is `priority`, else the workflow's. When no live worker serves the workflow's
    queue (and NOTIFLOW_TRIGGER_REQUIRES_WORKER is on), the same statement stores nothing and
    this raises TriggerRejected with status 503, unless the key's trigger exists already: a
    repeated request gets it (200) as for any repeated key. A trigger with this key that is
    soft-deleted does not count (the key is free again); one deleted while this runs makes it
    insert anew.
    Returns (trigger, created), with the trigger's workflow and version attached.
    """
    if not isinstance(idempotency_key, str) or not idempotency_key.strip():
        raise TriggerRejected("idempotency_key", "idempotency_key must be a non-empty string")
    if len(idempotency_key) > MAX_IDEMPOTENCY_KEY_LENGTH:
        raise TriggerRejected(
            "idempotency_key",
            f"idempotency_key must be at most {MAX_IDEMPOTENCY_KEY_LENGTH} characters",
        )
    if not isinstance(payload, dict):
        raise TriggerRejected("payload", "payload must be a JSON object")
    if priority is not None and (
        isinstance(priority, bool)
        or not isinstance(priority, int)
        or not PRIORITY_MIN <= priority <= PRIORITY_MAX
    ):
        raise TriggerRejected(
            "priority",
            f"priority must be an integer from {PRIORITY_MIN} to {PRIORITY_MAX} "
            "(higher is more urgent)",
        )

    params = {
        **STATUS_PARAMS,
        "workflow": workflow_key,
        "id": str(uuid.uuid4()),
        "key": idempotency_key,
        "payload": json.dumps(payload),
        "actor": actor,
        "priority": priority,
        "require_worker": settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER,
        "live_within": live_within_seconds(),
    }
    # Twice at most: the trigger that held the key may be deleted between the inbox statement
    # and the read of it; the key is then free, and the statement's second run takes it.
    for _ in range(2):
        row = fetchone_prepared(INTAKE_SQL, params)
        if row is None:
            raise TriggerRejected("workflow", f"workflow {workflow_key!r} does not exist")
        workflow_id, key, active, version_id, number, queue, served = row[:INTAKE_WORKFLOW_COLUMNS]
        if not active or version_id is None:
            raise TriggerRejected(
                "workflow", f"workflow {workflow_key!r} is not active", status_code=409
            )
        inserted = row[INTAKE_WORKFLOW_COLUMNS:]
        if inserted[0] is not None:
            break
        # ON CONFLICT waited for the winner to commit, so its row is visible to this query,
        # unless it has been deleted since. A repeated request gets its trigger even while
        # nobody serves the queue: it was stored.
        existing = (
            TriggerInstance.objects.select_related("workflow", "workflow_version")
            .filter(
                workflow_id=workflow_id, idempotency_key=idempotency_key, deleted_at__isnull=True
            )
            .first()
        )
        if existing is not None:
            return existing, False
        if not served and settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER:
            raise TriggerRejected(
                "workflow",
                f"no live worker serves queue {queue!r}; start one with: "
                f"celery -A notiflow worker -Q {queue}",
                status_code=503,
            )
    else:
        raise TriggerRejected(
            "idempotency_key",
            "the trigger with this idempotency key was deleted while this request ran, twice; "
            "send the request again",
            status_code=409,
        )
    trigger = trigger_from_row(inserted)
    # What the answer shows of the workflow and version, without another query (the other
    # fields are deferred: Django loads them if something asks).
    trigger.workflow = Workflow.from_db(connection.alias, ["id", "key"], [workflow_id, key])
    trigger.workflow_version = WorkflowVersion.from_db(
        connection.alias, ["id", "workflow_id", "number"], [version_id, workflow_id, number]
    )
    trigger_enqueue_on_commit(Nudge(trigger.pk, queue=queue, priority=trigger.priority))
    return trigger, True


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
