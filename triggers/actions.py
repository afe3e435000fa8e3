"""Bulk actions on runs (docs/bulk-actions.md; issue 49 §2): cancel, retry or replay every run a
filter matches, chunk by chunk on the workers, each run through the state machine
(triggers/state.py) as one action on one run would be.

Asked (`action_start`): the runs the filter matches, among those the action applies to (cancel:
unfinished; retry: failed; replay: any) and not deleted, are counted and their ids stored on the
action in id order (`run_ids`), at most NOTIFLOW_ACTION_MAX of them (more is ActionTooBig, and
nothing is stored). What the action does is then decided: a run that stops matching before its
chunk comes is *skipped*, never another run acted on instead.

Done (`action_chunk`), as leased work (triggers/action_work.py ACTIONS): a chunk task claims the
action under a lease, then in one transaction locks it while the lease is still its own, locks
the chunk's runs that still match (in id order: two actions never deadlock), acts on each, and
releases the action, fenced by its token, with the cursor past the chunk and its counts. So a
chunk is done entirely or not at all: a worker killed mid-chunk leaves nothing done, its lease
expires, the actions' sweep nudges the action again and the chunk is done once. A replay is
keyed besides (`replay:<action id>:<run id>`, trigger_replay): no run is ever replayed twice by
one action, whatever happens.

The same `idempotency_key` answers the same action: asking again starts nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils.dateparse import parse_datetime

from common.leases import lease_token
from triggers.action_work import (
    ActionNudge,
    ChunkOutcome,
    action_chunk_ids,
    action_chunks_enqueue_on_commit,
    action_claim,
    action_release,
)
from triggers.models import (
    TERMINAL_STATUSES,
    TriggerAction,
    TriggerActionKind,
    TriggerActionStatus,
    TriggerInstance,
    TriggerStatus,
)
from triggers.state import (
    TriggerNotFound,
    TriggerStateConflict,
    trigger_replay,
    trigger_retry_now,
    triggers_cancel_many,
)

logger = logging.getLogger(__name__)

IDS_MAX = 1000  # the most ids a filter may list
SAMPLE_SIZE = 20  # the runs a dry run shows
ACTION_ERROR_SAMPLE = 20  # the errors an action keeps, the first ones
ACTION_CHUNK_ATTEMPTS = 3  # chunks failed in a row that fail the action
ACTION_RESUME_AFTER_SECONDS = 30  # how long a failed chunk waits before it is tried again

# The runs each action applies to, by status (any other is left alone: not matched).
ACTION_STATUSES: dict[str, tuple[str, ...]] = {
    TriggerActionKind.CANCEL: tuple(s for s in TriggerStatus.values if s not in TERMINAL_STATUSES),
    TriggerActionKind.RETRY: (TriggerStatus.FAILED,),
    TriggerActionKind.REPLAY: tuple(TriggerStatus.values),
}


@dataclass(frozen=True)
class ActionFilter:
    """Which runs an action is for: every field given must hold (None: any). At least one is
    given (the API and the command refuse an empty filter)."""

    workflow: str | None = None
    status: tuple[str, ...] | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    node: str | None = None  # the run's current node
    error_contains: str | None = None  # in its last_error, case-insensitive
    recipient: str | None = None
    ids: tuple[UUID, ...] | None = field(default=None)

    def as_json(self) -> dict[str, Any]:
        """The filter as stored on the action and shown: the fields given."""
        stored: dict[str, Any] = {}
        for name, value in asdict(self).items():
            if value is None:
                continue
            if isinstance(value, datetime):
                value = value.isoformat()
            elif isinstance(value, tuple):
                value = [str(item) for item in value]
            stored[name] = value
        return stored

    @classmethod
    def from_json(cls, stored: dict[str, Any]) -> ActionFilter:
        """The filter as_json stored."""
        values: dict[str, Any] = dict(stored)
        for name in ("created_after", "created_before"):
            if values.get(name) is not None:
                values[name] = parse_datetime(values[name])
        if values.get("status") is not None:
            values["status"] = tuple(values["status"])
        if values.get("ids") is not None:
            values["ids"] = tuple(UUID(item) for item in values["ids"])
        return cls(**values)


class ActionTooBig(Exception):
    """More runs match than NOTIFLOW_ACTION_MAX: nothing was stored."""

    def __init__(self, matched: int):
        limit = settings.NOTIFLOW_ACTION_MAX
        super().__init__(
            f"{matched} runs match; an action may act on at most {limit} (NOTIFLOW_ACTION_MAX): "
            "narrow the filter, or act in parts (by created_after and created_before)"
        )
        self.matched = matched


class ActionKeyReused(Exception):
    """The idempotency key names an action of another kind or filter: nothing was started."""

    def __init__(self, existing: TriggerAction):
        super().__init__(
            f"idempotency key {existing.idempotency_key!r} was used for another action "
            f"({existing.action} {existing.filter}, action {existing.pk}); nothing was started. "
            "Send the same request again, or use a new key"
        )
        self.existing = existing


def action_runs(kind: str, run_filter: ActionFilter) -> QuerySet[TriggerInstance]:
    """The runs not deleted that `run_filter` matches among those action `kind` applies to."""
    runs = TriggerInstance.objects.filter(deleted_at__isnull=True, status__in=ACTION_STATUSES[kind])
    if run_filter.workflow is not None:
        runs = runs.filter(workflow__key=run_filter.workflow)
    if run_filter.status is not None:
        runs = runs.filter(status__in=run_filter.status)
    if run_filter.created_after is not None:
        runs = runs.filter(created_at__gte=run_filter.created_after)
    if run_filter.created_before is not None:
        runs = runs.filter(created_at__lt=run_filter.created_before)
    if run_filter.node is not None:
        runs = runs.filter(current_node_id=run_filter.node)
    if run_filter.error_contains is not None:
        runs = runs.filter(last_error__icontains=run_filter.error_contains)
    if run_filter.recipient is not None:
        runs = runs.filter(recipient=run_filter.recipient)
    if run_filter.ids is not None:
        runs = runs.filter(pk__in=list(run_filter.ids))
    return runs


def action_preview(kind: str, run_filter: ActionFilter) -> tuple[int, list[TriggerInstance]]:
    """What the action would act on now: how many runs, and the first SAMPLE_SIZE of them
    (newest first, with their workflow and version). Raises ActionTooBig as action_start
    would."""
    runs = action_runs(kind, run_filter)
    matched = runs.count()
    if matched > settings.NOTIFLOW_ACTION_MAX:
        raise ActionTooBig(matched)
    sample = list(
        runs.select_related("workflow", "workflow_version").order_by("-created_at")[:SAMPLE_SIZE]
    )
    return matched, sample


def action_start(
    *, kind: str, run_filter: ActionFilter, actor: str, idempotency_key: str = ""
) -> tuple[TriggerAction, bool]:
    """Store the action with the ids of the runs it matches now and hand it to the workers (its
    first chunk task on commit); (the action, True). With an `idempotency_key` an action already
    holds: (that action, False), nothing started; ActionKeyReused when that action is of another
    kind or filter. Raises ActionTooBig, storing nothing."""
    if idempotency_key:
        existing = _existing(idempotency_key, kind, run_filter)
        if existing is not None:
            return existing, False
    limit = settings.NOTIFLOW_ACTION_MAX
    runs = action_runs(kind, run_filter)
    run_ids = list(runs.order_by("pk").values_list("pk", flat=True)[: limit + 1])
    if len(run_ids) > limit:
        raise ActionTooBig(runs.count())
    try:
        with transaction.atomic():
            action = TriggerAction.objects.create(
                action=kind,
                filter=run_filter.as_json(),
                idempotency_key=idempotency_key,
                requested_by=actor,
                run_ids=run_ids,
                matched=len(run_ids),
                status=TriggerActionStatus.RUNNING if run_ids else TriggerActionStatus.DONE,
            )
            if run_ids:
                action_chunks_enqueue_on_commit([ActionNudge(action.pk)])
            else:
                TriggerAction.objects.filter(pk=action.pk).update(finished_at=action.created_at)
    except IntegrityError:
        # Another request with the same key won the race: its action is the answer.
        existing = _existing(idempotency_key, kind, run_filter)
        if existing is None:
            raise
        return existing, False
    action.refresh_from_db()
    return action, True


def _existing(key: str, kind: str, run_filter: ActionFilter) -> TriggerAction | None:
    existing = TriggerAction.objects.filter(idempotency_key=key).first()
    if existing is not None and (
        existing.action != kind or existing.filter != run_filter.as_json()
    ):
        raise ActionKeyReused(existing)
    return existing


def action_chunk(*, action_id: UUID | str, worker_id: str) -> int | None:
    """Act on the action's next chunk of runs under a lease, if the action is running, due and
    free (else None: another task holds it, or it is done). The runs' changes, the cursor past
    the chunk, its counts and, on the last chunk, `done` are one transaction, fenced by the
    lease's token; the next chunk's task is published after it commits. Returns how many runs
    the chunk reached.

    A chunk that raises is rolled back (no run acted on) and given back, due again after
    ACTION_RESUME_AFTER_SECONDS with its reason in `last_error`; after ACTION_CHUNK_ATTEMPTS
    in a row the action is `failed`. Then it is raised."""
    token = lease_token(worker_id)
    if not action_claim(action_id, token=token):
        return None
    try:
        with transaction.atomic():
            return _chunk_under_lease(action_id, token)
    except Exception as exc:
        attempts = (
            TriggerAction.objects.filter(pk=action_id).values_list("attempts", flat=True).first()
        )
        failed = (attempts or 0) + 1 >= ACTION_CHUNK_ATTEMPTS
        action_release(
            action_id,
            token=token,
            status=TriggerActionStatus.FAILED if failed else TriggerActionStatus.RUNNING,
            error=f"chunk failed: {exc!r}"[:2000],
            failed_chunk=True,
            wait=ACTION_RESUME_AFTER_SECONDS,
        )
        raise


def _chunk_under_lease(action_id: UUID | str, token: str) -> int | None:
    action = (
        TriggerAction.objects.select_for_update()
        .defer("run_ids")  # up to NOTIFLOW_ACTION_MAX ids: the chunk's alone are read
        .filter(pk=action_id, status=TriggerActionStatus.RUNNING, leased_by=token)
        .first()
    )
    if action is None:
        return None
    chunk = action_chunk_ids(action.pk, size=settings.NOTIFLOW_ACTION_CHUNK_SIZE)
    outcome = _act(action, chunk)
    last = action.cursor + len(chunk) >= action.matched
    action_release(
        action.pk,
        token=token,
        status=TriggerActionStatus.DONE if last else TriggerActionStatus.RUNNING,
        outcome=outcome,
        nudged=not last,
    )
    if not last:
        action_chunks_enqueue_on_commit([ActionNudge(action.pk)])
    return len(chunk)


def _act(action: TriggerAction, chunk: list[UUID]) -> ChunkOutcome:
    """Act on the runs of `chunk` that still match, each locked first (id order), in the
    current transaction; the outcome."""
    still = set(
        action_runs(action.action, ActionFilter.from_json(action.filter))
        .filter(pk__in=chunk)
        .select_for_update(of=("self",))
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    actor = action.requested_by
    reason = f"bulk action {action.pk} ({action.action})"
    if action.action == TriggerActionKind.CANCEL:
        done = triggers_cancel_many(trigger_ids=sorted(still), actor=actor, reason=reason)
        return ChunkOutcome(reached=len(chunk), done=len(done), skipped=len(chunk) - len(done))
    done_count, errors = 0, []
    for run_id in sorted(still):
        try:
            if action.action == TriggerActionKind.RETRY:
                trigger_retry_now(trigger_id=run_id, actor=actor, reason=reason)
            elif (
                trigger_replay(
                    trigger_id=run_id, key=replay_key(action.pk, run_id), actor=actor, reason=reason
                )
                is None
            ):
                continue  # replayed already by this action: skipped
            done_count += 1
        except (TriggerNotFound, TriggerStateConflict):
            continue  # gone, or changed under the lock: skipped
        except Exception as exc:  # one run's error is counted, the action goes on
            logger.warning("bulk action %s: run %s: %r", action.pk, run_id, exc)
            errors.append({"run": str(run_id), "error": str(exc)[:500]})
    room = max(0, ACTION_ERROR_SAMPLE - len(action.error_sample))
    return ChunkOutcome(
        reached=len(chunk),
        done=done_count,
        skipped=len(chunk) - done_count - len(errors),
        errors=len(errors),
        error_sample=tuple(errors[:room]),
    )


def replay_key(action_id: UUID | str, run_id: UUID | str) -> str:
    """The idempotency key of the replay of `run_id` by action `action_id`: what makes it
    happen once."""
    return f"replay:{action_id}:{run_id}"


def action_filter_of(fields: dict[str, Any]) -> ActionFilter:
    """The ActionFilter of a checked filter's fields (ActionFilterSerializer's)."""
    values: dict[str, Any] = dict(fields)
    for name in ("status", "ids"):
        if values.get(name) is not None:
            values[name] = tuple(_unique(values[name]))
    return ActionFilter(**values)


def _unique(items: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(items))
