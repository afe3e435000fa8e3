r"""The trigger state machine. Every status change goes through a function here, and each one
writes its TriggerEvent in the same statement or transaction as the change itself.

    enqueued --claim--> processing --release--> enqueued (next node, delay or retry)
                                             \-> completed | failed
    enqueued | processing --cancel--> cancelled;  failed --retry_now--> enqueued
    processing (lease expired) --requeue--> enqueued;  enqueued (overdue) --requeue--> enqueued

Soft delete (trigger_delete) is orthogonal to status: it sets `deleted_at` and leaves status,
cursor and lease alone. A deleted trigger is never claimed again (the claim and the sweeper skip
it), so retry_now and requeue refuse it; cancel still applies (docs/design.md, rule 12).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple
from uuid import UUID

from django.db import connection, transaction
from django.db.models.functions import Now

from common.db import fetchone_prepared
from common.leases import lease_free
from events import catalog as events
from events.services.outbox import Announcement, events_record
from triggers.hooks import CANCELLED_HOOKS
from triggers.models import TERMINAL_STATUSES, TriggerEvent, TriggerInstance, TriggerStatus
from triggers.sql import CLAIM_SQL, RELEASE_SQL, TRIGGER_COLUMNS

# The longest `delete_reason` trigger_delete accepts (the API, the admin and the schema say so).
MAX_DELETE_REASON_LENGTH = 1000


class TriggerNotFound(Exception):
    pass


class TriggerStateConflict(Exception):
    """The requested change does not apply to the trigger's current status."""

    def __init__(self, trigger: TriggerInstance, message: str):
        super().__init__(message)
        self.trigger = trigger


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
    the release adds to the database's clock, docs/design.md rule 15), what it adds to `vars`,
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
    of the release with it; those labelled 'without-release' only when the release could not
    apply and the ledger recorded a send), and an in-app message stored with the release
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


# What the release function sets, column by column, computed in memory from the trigger as
# claimed, the Release and the step's clock `now` (standing for the function's clock): the events
# the release writes announce the trigger as the release leaves it, and are built before it runs.
# The function's SET clause is the rule; this is its mirror for the announcements, held equal to
# the row the function leaves by tests/test_rule_homes.py, column by column.
_Value = Callable[[TriggerInstance, Release, datetime], Any]
RELEASED_VALUES: dict[str, _Value] = {
    "status": lambda t, r, now: r.status,
    "current_node_id": lambda t, r, now: r.current_node_id,
    "vars": lambda t, r, now: {**t.vars, **(r.vars_patch or {})},
    "attempts": lambda t, r, now: r.attempts,
    "available_at": lambda t, r, now: now + max(r.wait, timedelta(0)),
    "lease_until": lambda t, r, now: None,
    "leased_by": lambda t, r, now: "",
    "nudged_at": lambda t, r, now: now if r.nudged else None,
    "last_error": lambda t, r, now: r.last_error,
    "completed_at": lambda t, r, now: now if r.status in TERMINAL_STATUSES else None,
    "updated_at": lambda t, r, now: now,
}


def released_copy(trigger: TriggerInstance, release: Release, *, now: datetime) -> TriggerInstance:
    """`trigger` (as claimed) as the release leaves it, in memory, for what announces the change:
    each column of RELEASED_VALUES."""
    # A shallow copy of the instance's fields (copy.copy goes through pickling's protocol:
    # ten times slower, on every send step).
    after = TriggerInstance.__new__(TriggerInstance)
    after.__dict__.update(trigger.__dict__, _state=copy.copy(trigger._state))
    for column, value in RELEASED_VALUES.items():
        setattr(after, column, value(trigger, release, now))
    return after


class Route(NamedTuple):
    """Where a trigger's nudges go (docs/design.md, rule 11): its workflow's queue as it is now,
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

    One call of the release function (RELEASE_FUNCTION, triggers migration 0019). Fenced: it only applies while
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


def _locked_at(trigger_id: UUID | str) -> tuple[TriggerInstance, datetime]:
    """The trigger, row-locked, and the database's clock read by the same query (Django's Now()
    is PostgreSQL's statement_timestamp(): docs/design.md, rule 15): every time the change
    stores is that, never the process's own."""
    try:
        trigger = (
            TriggerInstance.objects.select_for_update()
            .annotate(db_now=Now())
            .get(pk=UUID(str(trigger_id)))
        )
    except (TriggerInstance.DoesNotExist, ValueError) as exc:
        raise TriggerNotFound(str(trigger_id)) from exc
    return trigger, trigger.db_now  # type: ignore[attr-defined]


def _change(
    trigger: TriggerInstance, *, to_status: str, actor: str, reason: str, now: datetime, **fields
) -> None:
    """Move the locked `trigger` to `to_status` with `fields`, stamped `now` (the database's
    clock, read with the lock), and its status event. An update, not a save: a save stamps
    `updated_at` with the process's clock (auto_now)."""
    from_status = trigger.status
    _update(trigger, now=now, status=to_status, **fields)
    TriggerEvent.objects.create(
        trigger=trigger,
        from_status=from_status,
        to_status=to_status,
        reason=reason,
        actor=actor,
        node_id=trigger.current_node_id,
    )


def _update(trigger: TriggerInstance, *, now: datetime, **fields: Any) -> None:
    fields["updated_at"] = now
    TriggerInstance.objects.filter(pk=trigger.pk).update(**fields)
    for name, value in fields.items():
        setattr(trigger, name, value)


def _nudge_on_commit(trigger: TriggerInstance) -> None:
    """Nudge `trigger` after commit, to its workflow's queue at its priority (rule 11)."""
    from triggers.dispatch import Nudge, trigger_enqueue_on_commit

    queue = trigger.workflow.queue
    trigger_enqueue_on_commit(Nudge(trigger.pk, queue=queue, priority=trigger.priority))


def _cancelled(trigger_ids: list[UUID]) -> None:
    if trigger_ids:
        for hook in CANCELLED_HOOKS:
            hook(trigger_ids)


@transaction.atomic
def trigger_cancel(*, trigger_id: UUID | str, actor: str, reason: str = "") -> TriggerInstance:
    """Cancel a trigger that is not terminal. Raises TriggerStateConflict when it is.

    Takes the row lock, so it serialises with claims and step outcomes: a step that had not yet
    written its send-ledger row will not send; one already sending finishes its single send and
    then finds the trigger cancelled (its outcome does not advance the cursor).
    """
    trigger, now = _locked_at(trigger_id)
    if trigger.is_terminal:
        raise TriggerStateConflict(trigger, f"trigger is already {trigger.status}")
    events_record([_cancel_locked(trigger, actor=actor, reason=reason, now=now)])
    _cancelled([trigger.pk])
    return trigger


@transaction.atomic
def triggers_cancel_by_key(
    *,
    cancellation_key: str,
    actor: str,
    reason: str = "",
    workflow_key: str | None = None,
    workflow_keys: Collection[str] | None = None,
) -> list[UUID]:
    """Cancel every trigger carrying `cancellation_key` that is neither terminal nor deleted, of
    the workflow `workflow_key` when given, and only of `workflow_keys` when given (an API key's
    workflows); the ids cancelled, in id order. One transaction, each trigger as trigger_cancel
    cancels it: locked (in id order, so two of these never deadlock), its event and its
    `trigger.cancelled` announcement. An empty key matches nothing (it means "no key")."""
    if not cancellation_key:
        return []
    matching = TriggerInstance.objects.filter(
        cancellation_key=cancellation_key, deleted_at__isnull=True
    ).exclude(status__in=TERMINAL_STATUSES)
    if workflow_key is not None:
        matching = matching.filter(workflow__key=workflow_key)
    if workflow_keys is not None:
        matching = matching.filter(workflow__key__in=list(workflow_keys))
    return _cancel_matching(matching, actor=actor, reason=reason)


@transaction.atomic
def triggers_cancel_many(
    *, trigger_ids: Collection[UUID | str], actor: str, reason: str = ""
) -> list[UUID]:
    """Cancel each of `trigger_ids` that is neither terminal nor deleted, as
    triggers_cancel_by_key cancels its matches (one transaction, locked in id order, each with
    its event and `trigger.cancelled`); the ids cancelled, in id order."""
    matching = TriggerInstance.objects.filter(
        pk__in=list(trigger_ids), deleted_at__isnull=True
    ).exclude(status__in=TERMINAL_STATUSES)
    return _cancel_matching(matching, actor=actor, reason=reason)


def _cancel_matching(matching: Any, *, actor: str, reason: str) -> list[UUID]:
    # The status is read again under the lock: a trigger that finished meanwhile is left be.
    # Workflow and version come along: the announcements show them.
    locked = list(
        matching.select_related("workflow", "workflow_version")
        .select_for_update(of=("self",))
        .annotate(db_now=Now())
        .order_by("pk")
    )
    events_record(
        [
            _cancel_locked(trigger, actor=actor, reason=reason, now=trigger.db_now)  # type: ignore[attr-defined]
            for trigger in locked
        ]
    )
    _cancelled([trigger.pk for trigger in locked])
    return [trigger.pk for trigger in locked]


def _cancel_locked(
    trigger: TriggerInstance, *, actor: str, reason: str, now: datetime
) -> Announcement:
    """Cancel `trigger`, locked and not terminal, at `now` (the database's clock, read with the
    lock); its `trigger.cancelled`, for the caller to record (with others, in one write)."""
    _change(
        trigger,
        to_status=TriggerStatus.CANCELLED,
        actor=actor,
        reason=reason or "cancelled",
        now=now,
        lease_until=None,
        completed_at=now,
    )
    return _announcement(events.TRIGGER_CANCELLED, trigger)


@transaction.atomic
def trigger_delete(*, trigger_id: UUID | str, actor: str, reason: str = "") -> TriggerInstance:
    """Soft-delete a trigger: `deleted_at` = now, `delete_reason` = `reason`, and a TriggerEvent
    (from and to the current status, reason `deleted: <reason>`, `actor`) in the same
    transaction. Status, cursor, lease and attempts do not change: delete is orthogonal to
    status, cancel is what stops a run.

    Takes the row lock, so it serialises with claims: a claim that comes after it finds nothing
    (the claim and the sweeper skip deleted triggers), and the trigger's idempotency key is free
    for a new trigger once this commits. A step already running when the delete lands may finish
    and record its outcome (the release is fenced by the lease token, not by `deleted_at`); the
    next node is never claimed. Idempotent: deleting a deleted trigger writes nothing and returns
    it as it is. Raises TriggerNotFound, and ValueError for a reason over
    MAX_DELETE_REASON_LENGTH characters.
    """
    if len(reason) > MAX_DELETE_REASON_LENGTH:
        raise ValueError(f"reason must be at most {MAX_DELETE_REASON_LENGTH} characters")
    trigger, now = _locked_at(trigger_id)
    if trigger.deleted_at is not None:
        return trigger
    _update(trigger, now=now, deleted_at=now, delete_reason=reason)
    TriggerEvent.objects.create(
        trigger=trigger,
        from_status=trigger.status,
        to_status=trigger.status,
        reason=f"deleted: {reason}" if reason else "deleted",
        actor=actor,
        node_id=trigger.current_node_id,
    )
    _announce(events.TRIGGER_DELETED, trigger)
    return trigger


def _announce(type: str, trigger: TriggerInstance) -> None:
    """Record event `type` about `trigger` in the current transaction (docs/design.md, rule 10)."""
    events_record([_announcement(type, trigger)])


def _announcement(type: str, trigger: TriggerInstance) -> Announcement:
    from triggers.announce import announcement  # it imports this module

    return announcement(type, trigger)


def _refuse_deleted(trigger: TriggerInstance, action: str) -> None:
    if trigger.deleted_at is not None:
        raise TriggerStateConflict(trigger, f"a deleted trigger cannot be {action}")


@transaction.atomic
def trigger_retry_now(*, trigger_id: UUID | str, actor: str) -> TriggerInstance:
    """Put a failed trigger back to `enqueued` at its current node, attempts reset, due now.
    Raises TriggerStateConflict for a trigger that is not failed, or is deleted."""
    trigger, now = _locked_at(trigger_id)
    _refuse_deleted(trigger, "retried")
    if trigger.status != TriggerStatus.FAILED or trigger.current_node_id is None:
        raise TriggerStateConflict(
            trigger, f"only a failed trigger can be retried ({trigger.status})"
        )
    _change(
        trigger,
        to_status=TriggerStatus.ENQUEUED,
        actor=actor,
        reason="retry requested",
        now=now,
        attempts=0,
        available_at=now,
        nudged_at=now,
        completed_at=None,
        last_error="",
    )
    _nudge_on_commit(trigger)
    return trigger


@transaction.atomic
def trigger_requeue(
    *, trigger_id: UUID | str, actor: str, overdue_after: timedelta
) -> TriggerInstance:
    """Requeue a stuck trigger now: the operator's lever for what the sweeper would do later.

    Stuck means `processing` with an expired lease (its worker died or hung: back to `enqueued`
    at the same node, attempts kept, lease cleared so that worker's late writes are fenced out),
    or `enqueued` and due for longer than `overdue_after` without being claimed (its nudge was
    lost: re-nudged, with an enqueued -> enqueued event for the audit). A live lease is never
    taken away. Raises TriggerStateConflict for a trigger that is not stuck, or is deleted.
    """
    trigger, now = _locked_at(trigger_id)
    _refuse_deleted(trigger, "requeued")
    if trigger.status == TriggerStatus.PROCESSING and lease_free(trigger.lease_until, now):
        reason = f"requeued: lease of {trigger.leased_by or 'a worker'} expired"
    elif trigger.status == TriggerStatus.ENQUEUED and trigger.available_at <= now - overdue_after:
        reason = f"requeued: due since {trigger.available_at.isoformat()} and not picked up"
    else:
        raise TriggerStateConflict(trigger, f"trigger is {trigger.status} and not stuck")
    _change(
        trigger,
        to_status=TriggerStatus.ENQUEUED,
        actor=actor,
        reason=reason,
        now=now,
        lease_until=None,
        leased_by="",
        available_at=now,
        nudged_at=now,
    )
    _nudge_on_commit(trigger)
    return trigger
