r"""The trigger state machine. Every status change goes through a function here or in
triggers/steps.py (a step's claim and release), and each one
writes its TriggerEvent in the same statement or transaction as the change itself.

    enqueued --claim--> processing --release--> enqueued (next node, delay or retry)
                                             \-> completed | failed
    enqueued | processing --cancel--> cancelled;  failed --retry_now--> enqueued
    any run --replay--> a new run, enqueued at the entry node of the same version
    processing (lease expired) --requeue--> enqueued;  enqueued (overdue) --requeue--> enqueued

A new status, and the files it touches: docs/guide/run-states.md.

Cancel, retry and replay are the state machine's database functions (triggers migration 0028,
called by triggers/sql.py's RUNS_CANCEL_SQL, RUN_RETRY_SQL and RUN_REPLAY_SQL), as the claim and
the release are: one path for the API, the admin, the shell and a bulk action's chunk on a worker,
whose database role changes no run of its own (workers/services/roles.py). What is left here is
what to call them with, the nudges after commit, and why a refused change was refused.

Soft delete (trigger_delete) is orthogonal to status: it sets `deleted_at` and leaves status,
cursor and lease alone. A deleted trigger is never claimed again (the claim and the sweeper skip
it), so retry_now and requeue refuse it; cancel still applies (docs/design/rules.md, rule 12).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.db import connection, transaction
from django.db.models.functions import Now

from common.leases import lease_free
from events import catalog as events
from events.dispatch import deliveries_enqueue_on_commit
from events.services.outbox import Announcement, announcements_json, events_record
from triggers.hooks import CANCELLED_HOOKS
from triggers.models import TERMINAL_STATUSES, TriggerEvent, TriggerInstance, TriggerStatus
from triggers.sql import RUN_REPLAY_SQL, RUN_RETRY_SQL, RUNS_CANCEL_SQL
from triggers.steps import trigger_from_row

# The longest `delete_reason` trigger_delete accepts (the API, the admin and the schema say so).
MAX_DELETE_REASON_LENGTH = 1000


class TriggerNotFound(Exception):
    pass


class TriggerStateConflict(Exception):
    """The requested change does not apply to the trigger's current status."""

    def __init__(self, trigger: TriggerInstance, message: str):
        super().__init__(message)
        self.trigger = trigger


def _run_id(trigger_id: UUID | str) -> UUID:
    try:
        return UUID(str(trigger_id))
    except ValueError as exc:
        raise TriggerNotFound(str(trigger_id)) from exc


def _locked_at(trigger_id: UUID | str) -> tuple[TriggerInstance, datetime]:
    """The trigger, row-locked, and the database's clock read by the same query (Django's Now()
    is PostgreSQL's statement_timestamp(): docs/design/rules.md, rule 15): every time the change
    stores is that, never the process's own."""
    try:
        trigger = (
            TriggerInstance.objects.select_for_update()
            .annotate(db_now=Now())
            .get(pk=_run_id(trigger_id))
        )
    except TriggerInstance.DoesNotExist as exc:
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


def _nudge_on_commit(trigger: TriggerInstance, queue: str | None = None) -> None:
    """Nudge `trigger` after commit, to its workflow's queue (`queue` when the caller read it)
    at its priority (rule 11)."""
    from triggers.dispatch import Nudge, trigger_enqueue_on_commit

    queue = trigger.workflow.queue if queue is None else queue
    trigger_enqueue_on_commit(Nudge(trigger.pk, queue=queue, priority=trigger.priority))


@transaction.atomic
def trigger_cancel(*, trigger_id: UUID | str, actor: str, reason: str = "") -> TriggerInstance:
    """Cancel a trigger that is not terminal. Raises TriggerStateConflict when it is.

    Takes the row lock, so it serialises with claims and step outcomes: a step that had not yet
    written its send-ledger row will not send; one already sending finishes its single send and
    then finds the trigger cancelled (its outcome does not advance the cursor).
    """
    trigger, _ = _locked_at(trigger_id)  # as it is: its announcement, or why it is refused
    cancelled = _cancel_locked([trigger], actor=actor, reason=reason)
    if not cancelled:
        raise TriggerStateConflict(trigger, f"trigger is already {trigger.status}")
    return cancelled[0]


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
    # Locked first, as they are (the function reads the status again under the lock: a trigger
    # that finished meanwhile is left be). Workflow and version come along: the announcements
    # show them.
    locked = list(
        matching.select_related("workflow", "workflow_version")
        .select_for_update(of=("self",))
        .order_by("pk")
    )
    return [trigger.pk for trigger in _cancel_locked(locked, actor=actor, reason=reason)]


def _cancel_locked(
    triggers: list[TriggerInstance], *, actor: str, reason: str
) -> list[TriggerInstance]:
    """Cancel those of `triggers` (locked, as they are) that are not over, by the state
    machine's function (`notiflow_runs_cancel_v1`): each with its status event and its
    `trigger.cancelled`, built here from the run as locked and shown by the function as it
    cancelled it; then the events' deliveries are nudged after commit and CANCELLED_HOOKS called
    with the ids cancelled. The runs as cancelled, in id order."""
    if not triggers:
        return []
    announced = [_announcement(events.TRIGGER_CANCELLED, trigger) for trigger in triggers]
    with connection.cursor() as cursor:
        cursor.execute(
            RUNS_CANCEL_SQL,
            {
                "ids": [str(trigger.pk) for trigger in triggers],
                "actor": actor,
                "reason": reason or "cancelled",
                "events": announcements_json(announced),
            },
        )
        rows = cursor.fetchall()
    locked = {trigger.pk: trigger for trigger in triggers}
    cancelled = []
    for row in rows:
        run = trigger_from_row(row[:-1])
        # The announcement read both: the answer shows them without another query.
        run.workflow = locked[run.pk].workflow
        run.workflow_version = locked[run.pk].workflow_version
        cancelled.append(run)
    if rows:
        deliveries_enqueue_on_commit(list(rows[0][-1] or []))
        for hook in CANCELLED_HOOKS:
            hook([run.pk for run in cancelled])
    return cancelled


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
    """Record event `type` about `trigger` in the current transaction (docs/design/rules.md, rule 10)."""
    events_record([_announcement(type, trigger)])


def _announcement(type: str, trigger: TriggerInstance) -> Announcement:
    from triggers.announce import announcement  # it imports this module

    return announcement(type, trigger)


def _refuse_deleted(trigger: TriggerInstance, action: str) -> None:
    if trigger.deleted_at is not None:
        raise TriggerStateConflict(trigger, f"a deleted trigger cannot be {action}")


@transaction.atomic
def trigger_retry_now(
    *, trigger_id: UUID | str, actor: str, reason: str = "retry requested"
) -> TriggerInstance:
    """Put a failed trigger back to `enqueued` at its current node, attempts reset, due now,
    its event saying `reason`, by the state machine's function (`notiflow_run_retry_v1`), and
    nudge it after commit; the trigger as it is now. Raises TriggerNotFound, and
    TriggerStateConflict for a trigger that is not failed, or is deleted."""
    run_id = _run_id(trigger_id)
    with connection.cursor() as cursor:
        cursor.execute(RUN_RETRY_SQL, {"id": str(run_id), "actor": actor, "reason": reason})
        row = cursor.fetchone()
    if row is None:  # the function refused it: say why
        trigger, _ = _locked_at(run_id)
        _refuse_deleted(trigger, "retried")
        raise TriggerStateConflict(
            trigger, f"only a failed trigger can be retried ({trigger.status})"
        )
    trigger = trigger_from_row(row[:-1])
    _nudge_on_commit(trigger, queue=row[-1])
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


@transaction.atomic
def trigger_replay(*, trigger_id: UUID | str, key: str, actor: str, reason: str) -> UUID | None:
    """Start a new run of `trigger_id`'s workflow version with its payload, recipient, locale,
    tenant, priority and cancellation key, at the version's entry node, due now, under the
    idempotency key `key`, with its `created` event (`reason`, `actor`), by the state machine's
    function (`notiflow_run_replay_v1`), and its nudge on commit; its id.
    None when a run not deleted of the workflow already holds `key`: the key is what makes a
    replay happen once (a bulk action's is `replay:<action id>:<run id>`), however often it is
    asked. Raises TriggerNotFound for a run that is not there."""
    run_id = _run_id(trigger_id)
    with connection.cursor() as cursor:
        cursor.execute(
            RUN_REPLAY_SQL, {"run": str(run_id), "key": key, "actor": actor, "reason": reason}
        )
        row = cursor.fetchone()
    if row is None:
        if not TriggerInstance.objects.filter(pk=run_id).exists():
            raise TriggerNotFound(str(trigger_id))
        return None
    from triggers.dispatch import Nudge, trigger_enqueue_on_commit

    run_id, queue, priority = row
    trigger_enqueue_on_commit(Nudge(run_id, queue=queue, priority=priority))
    return UUID(str(run_id))
