"""Trigger intake (the inbox) and API keys."""

from __future__ import annotations

import hashlib
import json
import secrets
import time
import uuid
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from notiflow.db import fetchone_prepared
from triggers.dispatch import trigger_enqueue_on_commit
from triggers.models import ApiKey, TriggerInstance
from triggers.state import TRIGGER_COLUMNS, trigger_from_row
from workflows.models import Workflow, WorkflowVersion

MAX_IDEMPOTENCY_KEY_LENGTH = 255


class TriggerRejected(Exception):
    """The trigger request is invalid; `field` names the culprit. Nothing was saved."""

    def __init__(self, field: str, message: str, *, status_code: int = 400):
        super().__init__(message)
        self.field = field
        self.message = message
        self.status_code = status_code


# The inbox in one statement (one round trip, atomic on its own): the workflow's current version
# looked up by key, the trigger inserted if the key is new, and its `created` event; the new row
# comes back whole, after the workflow's and version's columns (WORKFLOW_COLUMNS).
_CREATE_SQL = f"""
WITH target AS (
    SELECT w.id AS workflow_id, w.key, w.active, v.id AS version_id, v.number,
           v.definition ->> 'entry_node_id' AS entry_node_id
    FROM workflows_workflow w
    LEFT JOIN workflows_workflowversion v ON v.id = w.current_version_id
    WHERE w.key = %(workflow)s
), inserted AS (
    INSERT INTO trigger_instance
        (id, workflow_id, workflow_version_id, idempotency_key, payload, status,
         current_node_id, vars, attempts, available_at, leased_by, nudged_at,
         last_error, created_at, updated_at)
    SELECT %(id)s::uuid, workflow_id, version_id, %(key)s, %(payload)s::jsonb, 'enqueued',
           entry_node_id, '{{}}'::jsonb, 0, now(), '', now(), '', now(), now()
    FROM target WHERE active AND version_id IS NOT NULL
    ON CONFLICT (workflow_id, idempotency_key) DO NOTHING
    RETURNING *
), event AS (
    INSERT INTO trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
    SELECT id, '', 'enqueued', 'created', %(actor)s, current_node_id FROM inserted
)
SELECT target.workflow_id, target.key, target.active, target.version_id, target.number,
       {", ".join(f"inserted.{column}" for column in TRIGGER_COLUMNS)}
FROM target LEFT JOIN inserted ON true
"""  # noqa: S608 (the interpolated column names come from the model, not from input)
WORKFLOW_COLUMNS = 5


def trigger_create(
    *, workflow_key: str, idempotency_key: str, payload: Any, actor: str = ""
) -> tuple[TriggerInstance, bool]:
    """Insert the trigger for (workflow, idempotency_key), or return the one that already exists.

    The inbox: a single INSERT ... ON CONFLICT DO NOTHING decides, so any number of concurrent
    requests with the same key create exactly one row (there is no read-then-act window). A new
    trigger is `enqueued` at the entry node of the workflow's current version (read by the same
    statement), due now; it and its event are written by that statement, and its first nudge is
    published after commit (at once in autocommit, or when the caller's transaction commits).
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

    row = fetchone_prepared(
        _CREATE_SQL,
        {
            "workflow": workflow_key,
            "id": str(uuid.uuid4()),
            "key": idempotency_key,
            "payload": json.dumps(payload),
            "actor": actor,
        },
    )
    if row is None:
        raise TriggerRejected("workflow", f"workflow {workflow_key!r} does not exist")
    workflow_id, key, active, version_id, number = row[:WORKFLOW_COLUMNS]
    if not active or version_id is None:
        raise TriggerRejected(
            "workflow", f"workflow {workflow_key!r} is not active", status_code=409
        )
    inserted = row[WORKFLOW_COLUMNS:]
    if inserted[0] is None:
        # ON CONFLICT waited for the winner to commit, so its row is visible to this query.
        existing = TriggerInstance.objects.select_related("workflow", "workflow_version").get(
            workflow_id=workflow_id, idempotency_key=idempotency_key
        )
        return existing, False
    trigger = trigger_from_row(inserted)
    # What the answer shows of the workflow and version, without another query (the other
    # fields are deferred: Django loads them if something asks).
    trigger.workflow = Workflow.from_db(connection.alias, ["id", "key"], [workflow_id, key])
    trigger.workflow_version = WorkflowVersion.from_db(
        connection.alias, ["id", "workflow_id", "number"], [version_id, workflow_id, number]
    )
    trigger_enqueue_on_commit(trigger.pk)
    return trigger, True


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ApiKeyNameTaken(ValueError):
    """Another API key has this name (names are unique)."""


def api_key_create(*, name: str) -> tuple[ApiKey, str]:
    """Create an API key named `name` (stripped); returns (row, the key). The key is shown once
    and stored hashed. Raises ValueError for an empty name, ApiKeyNameTaken for a name in use
    (decided by the unique constraint, so two concurrent creations cannot both get it).

    Keys carry 256 bits of randomness, so a plain SHA-256 is enough (no slow KDF needed).
    """
    name = name.strip()
    if not name:
        raise ValueError("an API key needs a name")
    key = "nf_" + secrets.token_urlsafe(32)
    try:
        with transaction.atomic():
            api_key = ApiKey.objects.create(name=name, prefix=key[:10], key_hash=_hash(key))
    except IntegrityError:
        if ApiKey.objects.filter(name=name).exists():
            raise ApiKeyNameTaken(
                f"an API key named {name!r} already exists: choose another name"
            ) from None
        raise
    return api_key, key


# Keys found active, per process, for NOTIFLOW_API_KEY_CACHE_SECONDS: most requests then check
# their key without a query. Only hits are kept (a wrong key always queries, a new key works at
# once); a revoked key stops working at once in the revoking process, within the TTL elsewhere.
_api_keys_seen: dict[str, tuple[float, ApiKey]] = {}
_API_KEYS_SEEN_MAX = 1000


def api_key_authenticate(*, key: str) -> ApiKey | None:
    """The active ApiKey for `key`, or None (see _api_keys_seen for how long a revocation takes)."""
    digest = _hash(key)
    now = time.monotonic()
    seen = _api_keys_seen.get(digest)
    if seen is not None and seen[0] > now:
        return seen[1]
    api_key = ApiKey.objects.filter(key_hash=digest, revoked_at__isnull=True).first()
    ttl = settings.NOTIFLOW_API_KEY_CACHE_SECONDS
    if api_key is not None and ttl > 0:
        if len(_api_keys_seen) >= _API_KEYS_SEEN_MAX:
            _api_keys_seen.clear()
        _api_keys_seen[digest] = (now + ttl, api_key)
    return api_key


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
