"""`GET /metrics`: the Prometheus exposition of every process, for a scraper bearing
NOTIFLOW_METRICS_TOKEN (docs/design/observability.md, "Metrics").

Two sources, one answer:
- what the processes recorded (common/metrics.py): every file under NOTIFLOW_METRICS_DIR, of
  every process group on this host (gunicorn's workers, each Celery worker's prefork children),
  merged as prometheus_client's multiprocess mode merges them;
- gauges read from the database now (at most once per NOTIFLOW_METRICS_CACHE_SECONDS in a
  process): runs enqueued, running and waiting (every status not final) by workflow, runs whose
  lease expired, queue depth due and waiting, live workers per queue, webhook endpoints'
  health, event waits past their deadline, fan-outs running by workflow. Each reads a partial index of
  live rows (trigger_due_idx, trigger_lease_idx) or a small table, so a scrape costs the same
  on a table of millions of finished runs.
"""

from __future__ import annotations

import glob
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable

from django.conf import settings
from django.db.models import BooleanField, Count, ExpressionWrapper, Q
from django.db.models.functions import Now
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

from common.credentials import CredentialsMalformed, authorization_credentials, secret_matches
from common.leases import LeaseExpired
from events.models import WebhookEndpoint
from recipients.models import Fanout, FanoutStatus
from registry.selectors import live_workers_by_queue
from triggers.models import TERMINAL_STATUSES, TriggerInstance, TriggerStatus
from waits.models import EventWait
from workers.services.history import partitions_ahead, partitions_horizon
from workflows.models import Workflow

# The statuses of a run not finished, each a value of notiflow_runs (0 when none).
LIVE_STATUSES = [status for status in TriggerStatus if status not in TERMINAL_STATUSES]

# The gauges of DatabaseGauges, by name: tests/ops/test_metrics.py checks that the dashboard and
# the alerts name only these and common/metrics.py's.
GAUGES = {
    "notiflow_runs": (
        # The statuses from TriggerStatus: a new one is listed (and in the generated reference).
        f"Runs not finished, by workflow and status ({', '.join(LIVE_STATUSES)}).",
        ["workflow", "status"],
    ),
    "notiflow_runs_lease_expired": (
        "Runs still `processing` past their lease: their worker died or hangs.",
        ["workflow"],
    ),
    "notiflow_queue_depth": (
        "Runs enqueued on a queue: due now (state=due) or later (state=waiting).",
        ["queue", "state"],
    ),
    "notiflow_workers_live": (
        "Live workers (the registry's) serving a queue; 0 for a queue of an active workflow no "
        "live worker serves.",
        ["queue"],
    ),
    "notiflow_webhook_endpoint_enabled": (
        "1 for an enabled webhook endpoint, 0 for one disabled (by hand or after failures).",
        ["endpoint"],
    ),
    "notiflow_webhook_endpoint_failed_events": (
        "Events in a row an endpoint failed (it is disabled at NOTIFLOW_WEBHOOK_DISABLE_AFTER).",
        ["endpoint"],
    ),
    "notiflow_waits_overdue": (
        "Open event waits past their deadline: the sweeper times each out within a sweep, so a "
        "number that stays says it does not run or falls behind.",
        [],
    ),
    "notiflow_fanouts_running": ("Fan-outs still creating their runs, by workflow.", ["workflow"]),
    "notiflow_step_log_partitions_ahead_seconds": (
        "How far past now the history's last partitions reach (the step log's and the run "
        "events', whichever ends first; beat extends them hourly): a run created past it could "
        "not log its steps.",
        [],
    ),
    "notiflow_metrics_database_seconds": ("How long reading these gauges took.", []),
}


def _gauge(name: str) -> GaugeMetricFamily:
    documentation, labels = GAUGES[name]
    return GaugeMetricFamily(name, documentation, labels=labels)


def database_gauges() -> list[Metric]:
    """The gauges, read now: small queries, one on the live runs' indexes, one on the open
    waits' deadline index and one on the running fan-outs' index."""
    started = time.monotonic()
    workflows = dict(Workflow.objects.filter(active=True).values_list("key", "queue"))
    late = Q(status=TriggerStatus.ENQUEUED, available_at__lte=Now()) | Q(
        LeaseExpired(Now()), status=TriggerStatus.PROCESSING
    )
    rows = (
        TriggerInstance.objects.filter(status__in=LIVE_STATUSES, deleted_at__isnull=True)
        .values_list("workflow__key", "workflow__queue", "status")
        .annotate(late=ExpressionWrapper(late, output_field=BooleanField()), count=Count("id"))
        .order_by()
    )
    runs: Counter[tuple[str, str]] = Counter()
    expired: Counter[str] = Counter()
    depth: Counter[tuple[str, str]] = Counter()
    for key, queue in workflows.items():
        runs.update(dict.fromkeys(((key, status) for status in LIVE_STATUSES), 0))
        expired[key] = depth[queue, "due"] = depth[queue, "waiting"] = 0
    for key, queue, status, is_late, count in rows:
        runs[key, status] += count
        if status == TriggerStatus.PROCESSING:
            expired[key] += count if is_late else 0
        elif status == TriggerStatus.ENQUEUED:
            depth[queue, "due" if is_late else "waiting"] += count
    served = live_workers_by_queue()
    workers = {**dict.fromkeys(workflows.values(), 0), **served}
    endpoints = WebhookEndpoint.objects.values_list("id", "disabled_at", "failed_events")
    overdue = EventWait.objects.filter(resolved_at__isnull=True, deadline__lt=Now()).count()
    fanouts = Counter(
        Fanout.objects.filter(status=FanoutStatus.RUNNING).values_list("workflow_key", flat=True)
    )
    ahead = partitions_ahead(partitions_horizon())

    families = {name: _gauge(name) for name in GAUGES}
    for (key, status), count in sorted(runs.items()):
        families["notiflow_runs"].add_metric([key, status], count)
    for key, count in sorted(expired.items()):
        families["notiflow_runs_lease_expired"].add_metric([key], count)
    for (queue, state), count in sorted(depth.items()):
        families["notiflow_queue_depth"].add_metric([queue, state], count)
    for queue, count in sorted(workers.items()):
        families["notiflow_workers_live"].add_metric([queue], count)
    for endpoint_id, disabled_at, failed in endpoints:
        families["notiflow_webhook_endpoint_enabled"].add_metric(
            [str(endpoint_id)], 0 if disabled_at else 1
        )
        families["notiflow_webhook_endpoint_failed_events"].add_metric([str(endpoint_id)], failed)
    families["notiflow_waits_overdue"].add_metric([], overdue)
    for key in sorted(set(fanouts) | set(workflows)):
        families["notiflow_fanouts_running"].add_metric([key], fanouts[key])
    families["notiflow_step_log_partitions_ahead_seconds"].add_metric([], ahead.total_seconds())
    families["notiflow_metrics_database_seconds"].add_metric([], time.monotonic() - started)
    return list(families.values())


class DatabaseGauges:
    """database_gauges, read at most once per NOTIFLOW_METRICS_CACHE_SECONDS in a process; a
    scrape that finds them stale reads them while the others of this process wait for it."""

    def __init__(self, read: Callable[[], list[Metric]] = database_gauges) -> None:
        self.read = read
        self.clock: Callable[[], float] = time.monotonic
        self._lock = threading.Lock()
        self._value: list[Metric] = []
        self._read_at: float | None = None

    def collect(self) -> list[Metric]:
        with self._lock:
            now = self.clock()
            fresh = settings.NOTIFLOW_METRICS_CACHE_SECONDS
            if self._read_at is None or now - self._read_at >= fresh:
                self._value, self._read_at = self.read(), now
            return self._value


DATABASE_GAUGES = DatabaseGauges()


class RecordedMetrics:
    """Every file of every process group under NOTIFLOW_METRICS_DIR, merged."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def files(self) -> list[str]:
        return glob.glob(os.path.join(glob.escape(self.directory), "*", "*.db"))

    def collect(self) -> Iterable[Metric]:
        try:
            return MultiProcessCollector.merge(self.files(), accumulate=True)
        except FileNotFoundError:  # a group restarted between the glob and the read: once more
            return MultiProcessCollector.merge(self.files(), accumulate=True)


def metrics_registry() -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    if settings.NOTIFLOW_METRICS_DIR:
        registry.register(RecordedMetrics(settings.NOTIFLOW_METRICS_DIR))
    registry.register(DATABASE_GAUGES)
    return registry


def bearer_token_valid(request: HttpRequest, token: str) -> bool:
    try:
        given = authorization_credentials(request, "Bearer")
    except CredentialsMalformed:
        return False
    return given is not None and secret_matches(given, token)


@require_safe
def metrics_view(request: HttpRequest) -> HttpResponse:
    """The exposition for a scraper bearing the token; 404 when no token is configured (the
    endpoint is off), 401 without the right one."""
    token = settings.NOTIFLOW_METRICS_TOKEN
    if not token:
        raise Http404("metrics are off: NOTIFLOW_METRICS_TOKEN is not set")
    if not bearer_token_valid(request, token):
        response = HttpResponse("a bearer token is needed (NOTIFLOW_METRICS_TOKEN)\n", status=401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    response = HttpResponse(generate_latest(metrics_registry()), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response
