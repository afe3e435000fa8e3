"""One push node sends one message to each address of its recipient (docs/design/channels.md, "Push
channels"): every browser subscription in `recipient.channels.webpush`, every device token in
`recipient.channels.fcm`.

Exactly once per address, although the send ledger is per (trigger, node): while the ledger row
is `sending`, each address's outcome is committed to it (workers/sql.py, PUSH_PROGRESS_SQL) as
soon as its push service answers, before the next address is tried. A retry (after a transient
error, a 429 or a crash) sends only to the addresses with no outcome yet; the one address whose
answer a crash lost is sent again with the same Topic / collapse key, and the same notification
tag, so the push service or the device replaces the first copy rather than showing two.

An address the service says is gone (404/410, UNREGISTERED) is removed from the recipient and
listed in the output's `gone` (announced as message.failed); when every address is gone, or the
recipient has none, the step fails permanently (no retry can reach anyone).
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from collections.abc import Callable
from typing import Any

from django.db import connection

from workers.errors import PermanentError, RateLimited
from workers.providers.push import PushAnswer
from workers.sql import (
    PUSH_ADDRESS_REMOVE_SQL,
    PUSH_PROGRESS_RECORD_SQL,
    PUSH_PROGRESS_SQL,
    push_progress_params,
)

PushSend = Callable[[Any], PushAnswer]


def address_id(address: Any) -> str:
    """A short, stable name for an address: step logs and events show it instead of the
    address itself (a web push endpoint is a capability URL; a device token a credential)."""
    digest = hashlib.sha256(json.dumps(address, sort_keys=True).encode()).hexdigest()
    return digest[:16]


def push_topic(idempotency_key: str) -> str:
    """The RFC 8030 Topic (32 URL-safe characters at most) of a send, the same on every retry."""
    digest = hashlib.sha256(idempotency_key.encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()[:32]


def push_message_id(idempotency_key: str) -> str:
    """The message's own id (the notification's tag): deterministic, as an SMS's local id."""
    return f"push-{uuid.uuid5(uuid.NAMESPACE_URL, idempotency_key)}"


def _progress(trigger_id: str, node_id: str) -> dict[str, Any]:
    with connection.cursor() as cursor:
        cursor.execute(
            PUSH_PROGRESS_SQL, push_progress_params(trigger_id=trigger_id, node_id=node_id)
        )
        row = cursor.fetchone()
    value = row[0] if row else None
    if isinstance(value, str):
        value = json.loads(value)
    return value if isinstance(value, dict) else {}


def _progress_record(trigger_id: str, node_id: str, address: str, outcome: dict[str, str]) -> None:
    params = push_progress_params(
        trigger_id=trigger_id, node_id=node_id, outcome={address: outcome}
    )
    with connection.cursor() as cursor:
        cursor.execute(PUSH_PROGRESS_RECORD_SQL, params)


def _address_remove(recipient: str, address_key: str, address: Any) -> None:
    params = {
        "push_recipient": recipient,
        "push_key": address_key,
        "push_address": json.dumps(address),
    }
    with connection.cursor() as cursor:
        cursor.execute(PUSH_ADDRESS_REMOVE_SQL, params)


def push_fan_out(
    *,
    idempotency_key: str,
    recipient: str,
    address_key: str,
    addresses: list[Any],
    send: PushSend,
    provider: str,
) -> dict[str, Any]:
    """Send to each of `addresses` that has no outcome yet (module docstring); the node's
    output: `to` (the address ids), `delivered`, `gone`, and the send's usual keys."""
    trigger_id, _, node_id = idempotency_key.partition(":")  # the ledger's key (rule 6)
    progress = _progress(trigger_id, node_id)  # outcomes of earlier attempts of this step
    if not addresses and not progress:
        raise PermanentError(f"recipient {recipient!r} has no address in channels.{address_key}")
    sent = 0  # by this attempt
    for address in addresses:
        name = address_id(address)
        if name in progress:
            continue
        try:
            answer = send(address)  # an error stops here; the outcomes so far are committed
        except RateLimited as exc:  # the wait counts as an attempt if this one sent any
            raise RateLimited(exc.provider, exc.wait, reached=sent > 0) from exc
        sent += 1
        outcome = {"gone": answer.gone} if answer.gone else {"message_id": answer.message_id}
        _progress_record(trigger_id, node_id, name, outcome)
        if answer.gone:
            _address_remove(recipient, address_key, address)
        progress[name] = outcome
    # From every attempt's outcomes: an address found gone earlier has left the list since.
    accepted = [name for name, outcome in progress.items() if "message_id" in outcome]
    gone = [name for name, outcome in progress.items() if "gone" in outcome]
    if not accepted:
        why = ", ".join(f"{name}: {progress[name]['gone']}" for name in gone)
        raise PermanentError(
            f"every address of recipient {recipient!r} in channels.{address_key} is gone "
            f"({why}); removed"
        )
    return {
        "message_id": push_message_id(idempotency_key),
        "to": list(progress),
        "delivered": len(accepted),
        "gone": gone,
        "provider": provider,
        "provider_message_id": str(progress[accepted[0]]["message_id"])[:255],
    }
