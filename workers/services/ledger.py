"""The send ledger (docs/design.md, rule 6): at most one provider call per (trigger, node), except after a
crash between the provider's acceptance and the ledger commit, when the same idempotency key
is sent again so the provider or recipient can drop it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.db import connection

from triggers.models import TriggerInstance
from triggers.state import ClaimWrite, ReleaseWrite
from workers.sql import (
    SEND_COMPLETE_SQL,
    SEND_COMPLETED_CTE,
    SEND_FAILED_SQL,
    SEND_OPEN_RETURNS,
    SEND_OPEN_SQL,
    SEND_UNUSED_SQL,
    send_complete_params,
    send_failed_params,
    send_open_params,
    send_unused_params,
)


@dataclass(frozen=True)
class SendSlot:
    """Either the result of an earlier completed send, or permission to call the provider."""

    recorded_result: dict[str, Any] | None
    send_count: int


def send_open_write(*, channels: list[str]) -> ClaimWrite:
    """The ledger's part of a claim (trigger_claim_with): the `sending` row for a node whose type
    is one of `channels`, committed with the lease, so before any provider call.

    Because it is the claim's statement, a trigger cancelled (or claimed by another worker)
    before this point gets no row and is never sent for. send_count counts the attempts that
    reached the provider (send_unused_write gives back a slot whose templates failed): more than
    1 only after a crash, a timeout or a transient provider error.
    """
    return ClaimWrite(SEND_OPEN_SQL, SEND_OPEN_RETURNS, send_open_params(channels=channels))


def send_slot(returned: tuple[Any, ...]) -> SendSlot | None:
    """What the claim's `send_open_write` found: a slot, or None when it wrote and found nothing
    (the node is not a send node)."""
    send_count, recorded = returned
    if recorded is not None:
        result = json.loads(recorded) if isinstance(recorded, str) else recorded
        return SendSlot(recorded_result=result, send_count=0)
    if send_count is not None:
        return SendSlot(recorded_result=None, send_count=send_count)
    return None


def send_complete_write(
    *, trigger: TriggerInstance, node_id: str, result: dict[str, Any]
) -> ReleaseWrite:
    """Marking the send `sent` with the provider's answer, to commit with the step's release.

    It does not read `released`: a send that happened is recorded even when the release no longer
    applies (lease lost, cancelled), so that no later attempt repeats it.
    """
    return ReleaseWrite(
        SEND_COMPLETE_SQL,
        send_complete_params(trigger_id=trigger.pk, node_id=node_id, result=result),
        name=SEND_COMPLETED_CTE,
    )


def send_failed_write(*, trigger: TriggerInstance, node_id: str, provider: str) -> ReleaseWrite:
    """Recording, with the step's release, the provider of an attempt that reached it and failed
    (a failover shows in the ledger as one provider after another)."""
    return ReleaseWrite(
        SEND_FAILED_SQL,
        send_failed_params(trigger_id=trigger.pk, node_id=node_id, provider=provider),
    )


def send_unused_write(*, trigger: TriggerInstance, node_id: str) -> ReleaseWrite:
    """Giving back the send slot the claim opened, when the step ended before the provider call
    (its templates failed), to commit with the step's release: send_count keeps counting only
    the attempts that reached the provider. A row left at 0 says: opened, never sent.
    """
    return ReleaseWrite(SEND_UNUSED_SQL, send_unused_params(trigger_id=trigger.pk, node_id=node_id))


def send_complete(*, trigger: TriggerInstance, node_id: str, result: dict[str, Any]) -> None:
    """Mark the send `sent` on its own (the engine does it inside the release: send_complete_write)."""
    write = send_complete_write(trigger=trigger, node_id=node_id, result=result)
    with connection.cursor() as cursor:
        cursor.execute(write.sql, write.params)
