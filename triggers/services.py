"""Trigger intake (the inbox) and API keys."""

from __future__ import annotations

import hashlib
import json
import secrets
import time
import uuid
from typing import Any

from django.conf import settings
from django.utils import timezone

from notiflow.db import fetchone_prepared
from triggers.dispatch import trigger_enqueue_on_commit
from triggers.models import ApiKey, TriggerInstance
from triggers.state import TRIGGER_COLUMNS, trigger_from_row
from workflows.models import Workflow

MAX_IDEMPOTENCY_KEY_LENGTH = 255


class TriggerRejected(Exception):
    """The trigger request is invalid; `field` names the culprit. Nothing was saved."""

    def __init__(self, field: str, message: str, *, status_code: int = 400):
        super().__init__(message)
        self.field = field
        self.message = message
        self.status_code = status_code


# The inbox in one statement (one round trip, atomic on its own): the trigger, if the key is new,
# and its `created` event; the new row comes back whole.
_CREATE_SQL = f"""
WITH inserted AS (
    INSERT INTO trigger_instance
        (id, workflow_id, workflow_version_id, idempotency_key, payload, status,
         current_node_id, vars, attempts, available_at, leased_by, nudged_at,
         last_error, created_at, updated_at)
    VALUES (%(id)s, %(workflow)s, %(version)s, %(key)s, %(payload)s::jsonb, 'enqueued',
            %(node)s, '{{}}'::jsonb, 0, now(), '', now(), '', now(), now())
    ON CONFLICT (workflow_id, idempotency_key) DO NOTHING
    RETURNING *
), event AS (
    INSERT INTO trigger_event (trigger_id, from_status, to_status, reason, actor, node_id)
    SELECT id, '', 'enqueued', 'created', %(actor)s, current_node_id FROM inserted
)
SELECT {", ".join(TRIGGER_COLUMNS)} FROM inserted
"""  # noqa: S608 (the interpolated column names come from the model, not from input)


def trigger_create(
    *, workflow: Workflow, idempotency_key: str, payload: Any, actor: str = ""
) -> tuple[TriggerInstance, bool]:
    """Insert the trigger for (workflow, idempotency_key), or return the one that already exists.

    The inbox: a single INSERT ... ON CONFLICT DO NOTHING decides, so any number of concurrent
    requests with the same key create exactly one row (there is no read-then-act window). A new
    trigger is `enqueued` at the entry node of the workflow's current version, due now; it and
    its event are written by one statement, and its first nudge is published after commit (at
    once in autocommit, or when the caller's transaction commits). Returns (trigger, created).
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
    if not workflow.active or workflow.current_version is None:
        raise TriggerRejected(
            "workflow", f"workflow {workflow.key!r} is not active", status_code=409
        )

    version = workflow.current_version
    entry_node_id = version.definition["entry_node_id"]
    inserted = fetchone_prepared(
        _CREATE_SQL,
        {
            "id": str(uuid.uuid4()),
            "workflow": workflow.pk,
            "version": version.pk,
            "key": idempotency_key,
            "payload": json.dumps(payload),
            "node": entry_node_id,
            "actor": actor,
        },
    )
    if inserted is None:
        # ON CONFLICT waited for the winner to commit, so its row is visible to this query.
        existing = TriggerInstance.objects.select_related("workflow", "workflow_version").get(
            workflow=workflow, idempotency_key=idempotency_key
        )
        return existing, False
    trigger = trigger_from_row(inserted)
    # The row comes from RETURNING: no second query, and its workflow and version are known.
    trigger.workflow = workflow
    trigger.workflow_version = version
    trigger_enqueue_on_commit(trigger.pk)
    return trigger, True


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def api_key_create(*, name: str) -> tuple[ApiKey, str]:
    """Create an API key; returns (row, the key). The key is shown once and stored hashed.

    Keys carry 256 bits of randomness, so a plain SHA-256 is enough (no slow KDF needed).
    """
    if not name.strip():
        raise ValueError("the key needs a name")
    key = "nf_" + secrets.token_urlsafe(32)
    api_key = ApiKey.objects.create(name=name, prefix=key[:10], key_hash=_hash(key))
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


def api_key_revoke(*, api_key: ApiKey) -> None:
    api_key.revoked_at = timezone.now()
    api_key.save(update_fields=["revoked_at"])
    _api_keys_seen.pop(api_key.key_hash, None)
