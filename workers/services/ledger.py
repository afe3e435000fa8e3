"""The send ledger (docs/design/rules.md, rule 6): at most one provider call per (trigger, node), except after a
crash between the provider's acceptance and the ledger commit, when the same idempotency key
is sent again so the provider or recipient can drop it.

The ledger is written by the claim and the release (their database functions, triggers
migration 0013): the claim opens the `sending` row for a send node, or returns the result of a
send already completed; the release records the step's outcome in it, described here as the
release's `ledger` argument (`outcome`: sent, failed or unused).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from triggers.steps import Claimed


@dataclass(frozen=True)
class SendSlot:
    """Either the result of an earlier completed send, or permission to call the provider."""

    recorded_result: dict[str, Any] | None
    send_count: int


def send_slot(claimed: Claimed) -> SendSlot | None:
    """What the claim found in the ledger: a slot, or None when it wrote and found nothing (the
    node is not a send node).

    Because it is the claim's own call, a trigger cancelled (or claimed by another worker)
    before this point gets no row and is never sent for. send_count counts the attempts that
    reached the provider (ledger_unused gives back a slot whose templates failed): more than 1
    only after a crash, a timeout or a transient provider error.
    """
    recorded = claimed.ledger_result
    if recorded is not None:
        result = json.loads(recorded) if isinstance(recorded, str) else recorded
        return SendSlot(recorded_result=result, send_count=0)
    if claimed.ledger_send_count is not None:
        return SendSlot(recorded_result=None, send_count=claimed.ledger_send_count)
    return None


def ledger_sent(result: dict[str, Any]) -> dict[str, Any]:
    """The send happened: `sent` with the provider's answer. Recorded even when the release no
    longer applies (lease lost, cancelled), so that no later attempt repeats it."""
    return {
        "outcome": "sent",
        "result": result,
        "provider": str(result.get("provider") or ""),
        "provider_message_id": str(result.get("provider_message_id") or "")[:255],
    }


def ledger_failed(provider: str) -> dict[str, Any]:
    """An attempt that reached `provider` and failed: the provider joins the row's list (a
    failover shows as one provider after another)."""
    return {"outcome": "failed", "provider": provider}


def ledger_unused() -> dict[str, Any]:
    """The slot the claim opened, given back: the step ended before the provider call (its
    templates failed), so send_count keeps counting only the attempts that reached the provider.
    A row left at 0 says: opened, never sent."""
    return {"outcome": "unused"}
