"""Reads for triggers."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.db.models import (
    Aggregate,
    Count,
    DurationField,
    ExpressionWrapper,
    F,
    FloatField,
    Q,
    QuerySet,
)
from django.db.models.functions import Extract
from django.utils import timezone

from common.leases import LeaseExpired
from common.scopes import ScopedKey
from registry.selectors import live_workers_by_queue
from triggers.hooks import TIMELINE_SOURCES
from triggers.models import TriggerEvent, TriggerInstance, TriggerStatus
from workflows.models import Workflow

_HEX = re.compile(r"[0-9a-f]+")


def trigger_list(
    *,
    workflow_key: str | None = None,
    status: str | None = None,
    deleted: bool | None = None,
    recipient: str | None = None,
    tenant: str | None = None,
) -> QuerySet[TriggerInstance]:
    """Triggers with their workflow and version, newest first; `deleted` True lists only the
    soft-deleted ones, False only the others, None both; `recipient` a person's runs, `tenant` a
    tenant's."""
    triggers = TriggerInstance.objects.select_related("workflow", "workflow_version")
    if recipient:
        triggers = triggers.filter(recipient=recipient)
    if tenant:
        triggers = triggers.filter(tenant=tenant)
    if deleted is not None:
        triggers = triggers.filter(deleted_at__isnull=not deleted)
    if workflow_key:
        triggers = triggers.filter(workflow__key=workflow_key)
    if status:
        triggers = triggers.filter(status=status)
    return triggers.order_by("-created_at")


def trigger_stuck_list(*, overdue_after: timedelta) -> QuerySet[TriggerInstance]:
    """Triggers no worker is moving: `processing` past their lease, or `enqueued` and due for
    longer than `overdue_after`. Oldest first. A deleted trigger is not stuck: nothing is meant
    to move it (docs/design/rules.md, rule 12)."""
    now = timezone.now()
    return (
        TriggerInstance.objects.filter(
            Q(LeaseExpired(now), status=TriggerStatus.PROCESSING)
            | Q(status=TriggerStatus.ENQUEUED, available_at__lte=now - overdue_after),
            deleted_at__isnull=True,
        )
        .select_related("workflow")
        .order_by("available_at")
    )


def trigger_failed_list(
    *, workflow_key: str | None = None, since: datetime | None = None
) -> QuerySet[TriggerInstance]:
    """Failed triggers that are not deleted (those cannot be retried), optionally of one workflow
    and failed at or after `since`; oldest first."""
    triggers = TriggerInstance.objects.filter(status=TriggerStatus.FAILED, deleted_at__isnull=True)
    if workflow_key:
        triggers = triggers.filter(workflow__key=workflow_key)
    if since:
        triggers = triggers.filter(completed_at__gte=since)
    return triggers.select_related("workflow").order_by("completed_at")


@dataclass(frozen=True)
class TriggerStats:
    """A snapshot for operators: how many triggers are where, and how far behind the workers are."""

    now: datetime
    by_status: dict[str, int]
    by_workflow: dict[str, dict[str, int]]
    oldest_due: TriggerInstance | None
    expired_leases: int

    @property
    def lag(self) -> timedelta:
        """How long the oldest due trigger has waited past its due time (zero when none)."""
        if self.oldest_due is None:
            return timedelta(0)
        return max(self.now - self.oldest_due.available_at, timedelta(0))


def trigger_stats(*, now: datetime | None = None) -> TriggerStats:
    """Counts by status and by workflow (one GROUP BY), the oldest due trigger, expired leases;
    of the triggers that are not deleted (a deleted one is nobody's work)."""
    now = now or timezone.now()
    by_status = dict.fromkeys(TriggerStatus.values, 0)
    by_workflow: dict[str, dict[str, int]] = {}
    live = TriggerInstance.objects.filter(deleted_at__isnull=True)
    rows = live.values_list("workflow__key", "status").annotate(n=Count("id"))
    for workflow_key, status, count in rows.order_by():
        by_status[status] = by_status.get(status, 0) + count
        by_workflow.setdefault(workflow_key, dict.fromkeys(TriggerStatus.values, 0))[status] = count
    oldest_due = (
        live.filter(status=TriggerStatus.ENQUEUED, available_at__lte=now)
        .select_related("workflow")
        .order_by("available_at")
        .first()
    )
    expired = live.filter(LeaseExpired(now), status=TriggerStatus.PROCESSING).count()
    return TriggerStats(now, by_status, dict(sorted(by_workflow.items())), oldest_due, expired)


class PercentileCont(Aggregate):
    """PostgreSQL's percentile_cont: the value below which `fraction` of the ordered values lie,
    interpolated between the two nearest (so the p50 of 1, 2, 3, 4 is 2.5)."""

    function = "percentile_cont"
    template = "%(function)s(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def __init__(self, expression: Any, *, fraction: float, **extra: Any) -> None:
        if not 0 <= fraction <= 1:
            raise ValueError(f"a percentile's fraction is from 0 to 1, not {fraction}")
        super().__init__(expression, fraction=repr(float(fraction)), **extra)


@dataclass(frozen=True)
class WorkflowStats:
    """One workflow's runs as an operator asks about them: where its triggers are, how many wait
    for a worker now, and how the runs that finished within `window` went."""

    workflow_key: str
    queue: str
    at: datetime
    window: timedelta
    by_status: dict[str, int]  # every trigger not deleted
    queue_depth: int  # enqueued and due, not deleted: waiting for a worker to claim it
    live_workers: int  # live workers serving the workflow's queue (registry)
    completed: int  # finished within the window, completed
    failed: int  # finished within the window, failed
    p50_seconds: float | None  # created_at -> completed_at of the window's completed runs
    p95_seconds: float | None

    @property
    def window_seconds(self) -> float:
        return self.window.total_seconds()

    @property
    def success_rate(self) -> float | None:
        """completed / (completed + failed) within the window; None when none finished. A
        cancelled run is an operator's decision, neither a success nor a failure."""
        finished = self.completed + self.failed
        return self.completed / finished if finished else None


def workflow_stats(
    *, workflow: Workflow, now: datetime | None = None, window: timedelta = timedelta(hours=1)
) -> WorkflowStats:
    """WorkflowStats of `workflow`, in one query over its triggers (the `workflow` index) plus
    one of the registry. Durations are PostgreSQL's percentile_cont over seconds."""
    now = now or timezone.now()
    since = now - window
    finished = Q(completed_at__gte=since, completed_at__lte=now)
    completed = Q(status=TriggerStatus.COMPLETED) & finished
    duration = Extract(
        ExpressionWrapper(F("completed_at") - F("created_at"), output_field=DurationField()),
        "epoch",
    )
    counts = {status: Count("pk", filter=Q(status=status)) for status in TriggerStatus.values}
    row = TriggerInstance.objects.filter(workflow=workflow, deleted_at__isnull=True).aggregate(
        **{f"status_{status}": count for status, count in counts.items()},
        queue_depth=Count("pk", filter=Q(status=TriggerStatus.ENQUEUED, available_at__lte=now)),
        completed=Count("pk", filter=completed),
        failed=Count("pk", filter=Q(status=TriggerStatus.FAILED) & finished),
        p50=PercentileCont(duration, fraction=0.5, filter=completed),
        p95=PercentileCont(duration, fraction=0.95, filter=completed),
    )
    return WorkflowStats(
        workflow_key=workflow.key,
        queue=workflow.queue,
        at=now,
        window=window,
        by_status={status: row[f"status_{status}"] for status in TriggerStatus.values},
        queue_depth=row["queue_depth"],
        live_workers=live_workers_by_queue().get(workflow.queue, 0),
        completed=row["completed"],
        failed=row["failed"],
        p50_seconds=row["p50"],
        p95_seconds=row["p95"],
    )


def trigger_oldest_waiting(*, now: datetime) -> datetime | None:
    """Since when the longest-waiting work has waited for a worker: the earliest of the oldest
    due trigger's `available_at` and the oldest expired lease's `lease_until`; None when nothing
    is due and no lease has expired. One round trip, each half an index's first entry (the
    partial indexes leave deleted triggers out, and so does this: no worker will take them)."""
    live = TriggerInstance.objects.filter(deleted_at__isnull=True)
    due = (
        live.filter(status=TriggerStatus.ENQUEUED, available_at__lte=now)
        .order_by("available_at")
        .values_list("available_at", flat=True)[:1]
    )
    expired = (
        live.filter(LeaseExpired(now), status=TriggerStatus.PROCESSING)
        .order_by("lease_until")
        .values_list("lease_until", flat=True)[:1]
    )
    return min(due.union(expired, all=True), default=None)


@dataclass(frozen=True)
class TimelineEntry:
    """One line of a trigger's history: a status event or a step log, in time order."""

    at: datetime
    kind: str  # "event", "step" or "delivery"
    item: Any


def trigger_timeline(*, trigger: TriggerInstance) -> list[TimelineEntry]:
    """The trigger's status events and step logs (and TIMELINE_SOURCES' entries) merged into one
    list, oldest first.

    Step logs are reached through the reverse relation (`steps`), so `triggers` does not import
    `workers`. Events keep their insertion order (their ids): their times come from two clocks
    (PostgreSQL's for claims, Python's for the rest); the rest are merged in by time.
    """
    merged = [
        TimelineEntry(e.created_at, "event", e)
        for e in TriggerEvent.objects.of_run(trigger).order_by("id")
    ]
    steps = [
        TimelineEntry(s.started_at, "step", s)
        for s in trigger.steps.of_run_created(trigger.created_at).order_by("started_at", "id")  # type: ignore[attr-defined]
    ]
    for entries in [steps, *(source(trigger) for source in TIMELINE_SOURCES)]:
        merged = _merged(merged, entries)
    return merged


def _merged(ordered: list[TimelineEntry], entries: list[TimelineEntry]) -> list[TimelineEntry]:
    """`entries` merged into `ordered` by time, keeping `ordered`'s own order."""
    ordered, entries, result = list(ordered), list(entries), []
    while ordered and entries:
        result.append(entries.pop(0) if entries[0].at < ordered[0].at else ordered.pop(0))
    return result + ordered + entries


# The shortest prefix of a trigger id the commands accept: the admin shows the first 8.
TRIGGER_PREFIX_MIN = 4


def trigger_ids_by_prefix(prefix: str, *, limit: int = 11) -> list[UUID]:
    """The ids (at most `limit`, in order) of the triggers, deleted ones too, whose id starts
    with `prefix`: hex digits as the id is written, hyphens optional, any case. One range scan
    of the primary key; ValueError when `prefix` is not such a prefix."""
    digits = prefix.strip().lower().replace("-", "")
    if len(digits) < TRIGGER_PREFIX_MIN or len(digits) > 32 or not _HEX.fullmatch(digits):
        raise ValueError(
            f"not a trigger id (a UUID, or at least {TRIGGER_PREFIX_MIN} of its first hex "
            f"digits): {prefix!r}"
        )
    low, high = UUID(digits.ljust(32, "0")), UUID(digits.ljust(32, "f"))
    ids = TriggerInstance.objects.filter(pk__gte=low, pk__lte=high).order_by("pk")
    return list(ids.values_list("pk", flat=True)[:limit])


def run_trace_context(trigger_id: UUID) -> str:
    """The trace context intake stored with run `trigger_id` (its traceparent), or "" when it
    has none or is gone (an event outlives its run's retention: events/models.py). Read by the
    webhook dispatcher while tracing is on (events.hooks.RUN_TRACE_CONTEXT)."""
    rows = TriggerInstance.objects.filter(pk=trigger_id).values_list("trace_context", flat=True)
    return next(iter(rows[:1]), "")


def workflow_active_keys(*, api_key: ScopedKey) -> Callable[[], list[str]]:
    """The keys of the active workflows `api_key` may see, read once when first asked (an
    unknown workflow's "did you mean": triggers.services.rejected_suggesting)."""
    workflows = api_key.limit_queryset(Workflow.objects.filter(active=True).order_by("key"), "key")
    return functools.cache(lambda: list(workflows.values_list("key", flat=True)))
