"""A step's side of the trigger state machine (triggers/state.py has the operators' side): the
claim that leases a due run to a worker and the release that ends its step, each one call of a
versioned database function (CLAIM_SQL, RELEASE_SQL: docs/design/run.md, "The claim and the
release"), with the parameters the engine builds. What a release sets is the function's SET
clause alone: the events it writes show the run as that UPDATE left it, read from the row
(triggers migration 0024), so no copy of the rule is kept here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple
from uuid import UUID

from django.db import connection

from common.db import fetchone_prepared
from triggers.models import TERMINAL_STATUSES, TriggerInstance
from triggers.sql import CLAIM_SQL, RELEASE_SQL, TRIGGER_COLUMNS


def claim_params(
    *,
    trigger_id: UUID | str,
    worker_id: str,
    lease_seconds: float,
    channels: Sequence[str] = (),
) -> dict[str, Any]:
    """The parameters of triggers.sql.CLAIM_SQL: the send ledger is opened when the node the claim
    lands on is of a type in `channels`."""
    return {
        "id": str(trigger_id),
        "worker": worker_id,
        "lease": lease_seconds,
        "channels": list(channels),
    }


class Claimed(NamedTuple):
    """A claim that applied: the run as claimed, what the claim found in its send ledger (the
    row's send_count after opening it, or the result of a send already completed; both None for
    a node that does not send), the database's clock as the claim read it, the suppression
    list's generation (a send node's; deliveries.suppression.SuppressionCache) and whether any
    webhook endpoint exists to hear the step's events (if not, the release is given none)."""

    trigger: TriggerInstance
    ledger_send_count: int | None
    ledger_result: Any
    claimed_at: datetime
    suppression_generation: int | None = None
    announced_to: bool = True


def trigger_claim_with(
    *,
    trigger_id: UUID | str,
    worker_id: str,
    lease_seconds: float,
    channels: Sequence[str] = (),
) -> Claimed | None:
    """Take the lease on a trigger that is due (or whose lease expired): one call of
    `notiflow_claim_v2` (triggers migration 0015), which also opens the send ledger (rule 6) when
    the node it lands on is of a type in `channels`. Under any number of concurrent or duplicated
    messages exactly one caller gets the row; the others get None (and nothing is written), as
    they do for a trigger that is not due, is terminal, or does not exist. `worker_id` must be
    unique per claim (it fences later writes)."""
    params = claim_params(
        trigger_id=trigger_id,
        worker_id=worker_id,
        lease_seconds=lease_seconds,
        channels=channels,
    )
    row = fetchone_prepared(CLAIM_SQL, params)
    if row is None:
        return None
    width = len(TRIGGER_COLUMNS)
    return Claimed(trigger_from_row(row[:width]), *row[width:])


def trigger_from_row(row: Sequence[Any]) -> TriggerInstance:
    """A TriggerInstance from a row of TRIGGER_COLUMNS (as RETURNING gives it), without a query."""
    values = dict(zip(TRIGGER_COLUMNS, row, strict=True))
    for name in ("payload", "vars"):
        if isinstance(values[name], str):
            values[name] = json.loads(values[name])
    return TriggerInstance.from_db(connection.alias, TRIGGER_COLUMNS, list(values.values()))


@dataclass(frozen=True)
class Release:
    """How a step leaves the trigger: its next status, cursor and due time (`wait`: a duration
    the release adds to the database's clock, docs/design/rules.md rule 15), what it adds to `vars`,
    its failure count and error, and the reason its status event gives."""

    status: str
    current_node_id: str | None
    wait: timedelta
    reason: str
    vars_patch: dict[str, Any] | None = None
    attempts: int = 0
    nudged: bool = False  # a nudge is published on commit (the sweeper need not)
    last_error: str = ""


@dataclass(frozen=True)
class StepRecord:
    """What the release writes beside the run, each None when not this time (the jsonb arguments
    of the release function): the send ledger's outcome (workers.services.ledger), the step log
    (only with the release), the events (events.services.outbox.announcements_json: those
    of the release with it, each `data.trigger` the run as claimed, which the release overlays
    with what it set, and a retry's `data.step.retry_at` with its due time; those labelled
    'without-release' as they are, only when the release could not apply and the ledger
    recorded a send), and an in-app message stored with the release
    (inbox.sql.inbox_message_json)."""

    ledger: dict[str, Any] | None = None
    step_log: dict[str, Any] | None = None
    events: str | None = None
    inbox: str | None = None


def release_params(
    *,
    trigger_id: UUID | str,
    lease_token: str,
    step_node_id: str | None,
    release: Release,
    record: StepRecord = StepRecord(),
) -> dict[str, Any]:
    """The parameters of triggers.sql.RELEASE_SQL (see trigger_release)."""
    return {
        "id": str(trigger_id),
        "token": lease_token,
        "step_node": step_node_id,
        "status": release.status,
        "node": release.current_node_id,
        "patch": json.dumps(release.vars_patch or {}),
        "attempts": release.attempts,
        "due_in": max(release.wait.total_seconds(), 0.0),
        "nudged": release.nudged,
        "error": release.last_error,
        "finished": release.status in TERMINAL_STATUSES,
        "reason": release.reason,
        "ledger": None if record.ledger is None else json.dumps(record.ledger),
        "step_log": None if record.step_log is None else json.dumps(record.step_log),
        "events": record.events,
        "inbox": record.inbox,
    }


class Route(NamedTuple):
    """Where a trigger's nudges go (docs/design/rules.md, rule 11): its workflow's queue as it is now,
    and the trigger's priority (0-9, higher is more urgent)."""

    queue: str
    priority: int


def trigger_release(
    *,
    trigger: TriggerInstance,
    lease_token: str,
    release: Release,
) -> Route | None:
    """End a step under the lease `lease_token` as `release` says.

    One call of the release function (RELEASE_FUNCTION, triggers migration 0024). Fenced: it only applies while
    the trigger is still `processing` under this very lease, so a worker whose lease expired
    (and was reclaimed) or whose trigger was cancelled changes nothing. The status event commits
    with it. Returns the route of the trigger's next nudge when the release applied, None when
    it did not.
    """
    released = trigger_release_with(trigger=trigger, lease_token=lease_token, release=release)
    return released[0] if released else None


def trigger_release_with(
    *,
    trigger: TriggerInstance,
    lease_token: str,
    release: Release,
    record: StepRecord = StepRecord(),
) -> tuple[Route, list[int] | None] | None:
    """trigger_release, writing `record` in the same call (see StepRecord); beside the route,
    the ids of the deliveries to nudge after commit (None: none)."""
    params = release_params(
        trigger_id=trigger.pk,
        lease_token=lease_token,
        step_node_id=trigger.current_node_id,
        release=release,
        record=record,
    )
    row = fetchone_prepared(RELEASE_SQL, params)
    return (Route(row[0], row[1]), row[2]) if row else None
