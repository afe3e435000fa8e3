"""A workflow's last 24 hours in numbers, for the charts on its admin page (docs/design/workflows.md,
"Charts"): per hour, the runs that ended completed and failed, their p50/p95 run time, the p99
lateness of their first step, and the messages sent per provider.

Every figure is of the runs that *ended* in the hour (`completed_at`, set by the release that
finishes a run), found through trigger_workflow_completed_idx, which holds finished runs only:
the cost follows the runs of the window, not the table. Lateness is the time from the run's
creation to the start of its first step (its claim): what a waiting queue adds, the one due time
every run has without reading its steps' own schedule. Sends are the send ledger's `sent` rows of
those runs, by the hour they were sent. Step logs and the send ledger are reached through their
reverse relations (`steps`, `sends`): `triggers` does not import `workers`.

Cached in Django's cache for CHART_CACHE_SECONDS, keyed by the workflow and the minute.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.db.models import Count, DurationField, ExpressionWrapper, F, OuterRef, Q, Subquery
from django.db.models.functions import Extract, Trunc
from django.utils import timezone

from triggers.models import TriggerInstance, TriggerStatus
from triggers.selectors import PercentileCont
from workflows.models import Workflow

CHART_HOURS = 24
CHART_CACHE_SECONDS = 60


@dataclass(frozen=True)
class WorkflowCharts:
    """Hourly series, oldest hour first; a percentile is None for an hour without a run."""

    workflow_key: str
    hours: list[datetime]  # the start of each hour, UTC
    completed: list[int]
    failed: list[int]
    p50_seconds: list[float | None]
    p95_seconds: list[float | None]
    lateness_p99_seconds: list[float | None]
    sends: dict[str, list[int]] = field(default_factory=dict)  # provider -> per hour


def _seconds(later: Any, earlier: Any) -> Extract:
    return Extract(ExpressionWrapper(later - earlier, output_field=DurationField()), "epoch")


def workflow_charts(*, workflow: Workflow, now: datetime | None = None) -> WorkflowCharts:
    """The last CHART_HOURS hours of `workflow` (the current hour last, partly gone). Two
    queries: the runs by hour (counts, run times, first-step lateness) and the sends."""
    now = now or timezone.now()
    first = now.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    first -= timedelta(hours=CHART_HOURS - 1)
    hours = [first + timedelta(hours=i) for i in range(CHART_HOURS)]
    ended = TriggerInstance.objects.filter(
        workflow=workflow,
        completed_at__gte=first,
        completed_at__lte=now,
        deleted_at__isnull=True,
    )
    steps = TriggerInstance._meta.get_field("steps").related_model._default_manager
    first_step = steps.filter(trigger=OuterRef("pk")).order_by("started_at").values("started_at")
    completed = Q(status=TriggerStatus.COMPLETED)
    run_time = _seconds(F("completed_at"), F("created_at"))
    by_hour = {
        row["hour"]: row
        for row in ended.annotate(
            hour=Trunc("completed_at", "hour", tzinfo=UTC), first_step=Subquery(first_step[:1])
        )
        .values("hour")
        .annotate(
            completed=Count("pk", filter=completed),
            failed=Count("pk", filter=Q(status=TriggerStatus.FAILED)),
            p50=PercentileCont(run_time, fraction=0.5, filter=completed),
            p95=PercentileCont(run_time, fraction=0.95, filter=completed),
            lateness=PercentileCont(_seconds(F("first_step"), F("created_at")), fraction=0.99),
        )
    }
    ledger = TriggerInstance._meta.get_field("sends").related_model._default_manager
    sends: dict[str, list[int]] = {}
    index = {hour: i for i, hour in enumerate(hours)}
    for row in (
        ledger.filter(trigger__in=ended, status="sent", sent_at__gte=first, sent_at__lte=now)
        .annotate(hour=Trunc("sent_at", "hour", tzinfo=UTC))
        .values("provider", "hour")
        .annotate(count=Count("pk"))
    ):
        per_hour = sends.setdefault(row["provider"] or "(none)", [0] * CHART_HOURS)
        per_hour[index[row["hour"]]] += row["count"]
    empty: dict[str, Any] = {}
    return WorkflowCharts(
        workflow_key=workflow.key,
        hours=hours,
        completed=[by_hour.get(h, empty).get("completed", 0) for h in hours],
        failed=[by_hour.get(h, empty).get("failed", 0) for h in hours],
        p50_seconds=[by_hour.get(h, empty).get("p50") for h in hours],
        p95_seconds=[by_hour.get(h, empty).get("p95") for h in hours],
        lateness_p99_seconds=[by_hour.get(h, empty).get("lateness") for h in hours],
        sends=dict(sorted(sends.items())),
    )


def workflow_charts_cache_key(*, workflow: Workflow, now: datetime) -> str:
    """The cache key of `workflow`'s charts at `now`: one per workflow and minute."""
    return f"workflow-charts:{workflow.pk}:{now.astimezone(UTC):%Y%m%d%H%M}"


def workflow_charts_cached(*, workflow: Workflow, now: datetime | None = None) -> WorkflowCharts:
    """workflow_charts, computed at most once a minute per workflow (Django's cache)."""
    now = now or timezone.now()
    key = workflow_charts_cache_key(workflow=workflow, now=now)
    charts = cache.get(key)
    if charts is None:
        charts = workflow_charts(workflow=workflow, now=now)
        cache.set(key, charts, CHART_CACHE_SECONDS)
    return charts
