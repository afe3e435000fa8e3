"""The send ledger (DESIGN rule 6): at most one provider call per (trigger, node), except after a
crash between the provider's acceptance and the ledger commit, when the same idempotency key
is sent again so the provider or recipient can drop it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.db import connection

from notiflow.db import fetchone_prepared
from triggers.models import TriggerInstance
from triggers.state import ReleaseWrite


class LeaseLost(Exception):
    """The trigger is no longer ours to work on: cancelled, or reclaimed after our lease expired."""


@dataclass(frozen=True)
class SendSlot:
    """Either the result of an earlier completed send, or permission to call the provider."""

    recorded_result: dict[str, Any] | None
    send_count: int


SEND_BEGIN_SQL = """
WITH owner AS (
    SELECT id FROM trigger_instance
    WHERE id = %(trigger)s AND status = 'processing' AND leased_by = %(token)s
)
INSERT INTO send_ledger (trigger_id, node_id, idempotency_key, channel, status,
                         send_count, created_at)
SELECT id, %(node)s, %(key)s, %(channel)s, 'sending', 1, now() FROM owner
ON CONFLICT (trigger_id, node_id) DO UPDATE
    SET send_count = send_ledger.send_count + 1
    WHERE send_ledger.status = 'sending'
RETURNING send_count
"""


def send_begin(
    *, trigger: TriggerInstance, node_id: str, channel: str, lease_token: str
) -> SendSlot:
    """Write the `sending` row, committed, before the provider is called.

    In the same statement it checks that the trigger is still `processing` under our lease, so a
    trigger cancelled before this point is never sent for. Raises LeaseLost when it is not ours.
    Runs in autocommit: the row is durable before the side effect.
    """
    key = f"{trigger.pk}:{node_id}"
    row = fetchone_prepared(
        SEND_BEGIN_SQL,
        {
            "trigger": str(trigger.pk),
            "token": lease_token,
            "node": node_id,
            "key": key,
            "channel": channel,
        },
    )
    if row is not None:
        return SendSlot(recorded_result=None, send_count=row[0])
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT result FROM send_ledger WHERE trigger_id = %s AND node_id = %s AND status = 'sent'",
            [str(trigger.pk), node_id],
        )
        sent = cursor.fetchone()
    if sent is None:
        raise LeaseLost(f"trigger {trigger.pk} is no longer processing under {lease_token}")
    result = json.loads(sent[0]) if isinstance(sent[0], str) else sent[0]
    return SendSlot(recorded_result=result, send_count=0)


SEND_COMPLETE_SQL = """
UPDATE send_ledger SET status = 'sent', result = %(ledger_result)s::jsonb, sent_at = now()
WHERE trigger_id = %(ledger_trigger)s AND node_id = %(ledger_node)s AND status = 'sending'
"""


def send_complete_write(
    *, trigger: TriggerInstance, node_id: str, result: dict[str, Any]
) -> ReleaseWrite:
    """Marking the send `sent` with the provider's answer, to commit with the step's release.

    It does not read `released`: a send that happened is recorded even when the release no longer
    applies (lease lost, cancelled), so that no later attempt repeats it.
    """
    return ReleaseWrite(
        SEND_COMPLETE_SQL,
        {
            "ledger_result": json.dumps(result),
            "ledger_trigger": str(trigger.pk),
            "ledger_node": node_id,
        },
    )


def send_complete(*, trigger: TriggerInstance, node_id: str, result: dict[str, Any]) -> None:
    """Mark the send `sent` on its own (the engine does it inside the release: send_complete_write)."""
    write = send_complete_write(trigger=trigger, node_id=node_id, result=result)
    with connection.cursor() as cursor:
        cursor.execute(write.sql, write.params)
