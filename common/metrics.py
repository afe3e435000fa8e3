"""The service's Prometheus counters and histograms, and how each process records them
(docs/design/observability.md, "Metrics").

Every process records into files of its own under NOTIFLOW_METRICS_DIR (prometheus_client's
multiprocess mode): gunicorn's workers and the Celery worker's prefork children are separate
processes, and the web process's `GET /metrics` (notiflow/metrics.py) reads every file there, so
one scrape shows what all of them recorded, the prefork children included. Each process group
writes to a directory of its own (`web@<address>`, `worker-<node name>`), which its parent process cleans
when it starts (metrics_process_start), before it forks: a restarted group starts again from
zero (Prometheus reads that as a counter reset), and never wipes another group's files.

Without NOTIFLOW_METRICS_DIR nothing is recorded and every function here returns at once: the
hot path pays one attribute read. The gauges of rows (runs by status, queue depth, live workers,
webhook endpoints, overdue waits, running fan-outs) are not here: the web process reads them
from the database at scrape time. The one gauge here, open streams, is each web process's own
(`livesum`: the files of processes that ended are left out, notiflow/gunicorn_conf.py).

Label values are bounded by configuration, never by traffic: workflow keys, node types,
channels, provider names, outcomes, HTTP status codes. Never a trigger id, a recipient or a URL
(tests/ops/test_metrics.py lists the label names).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from pathlib import Path
from typing import Any

from anymail.signals import EventType
from django.conf import settings
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, multiprocess, values

logger = logging.getLogger(__name__)

# prometheus_client reads its directory from this variable whenever a process opens its files
# (after a fork too): metrics_process_start sets it to the group's directory.
MULTIPROC_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"

# The metrics are registered here, not in prometheus_client's default registry: the web process
# exposes the merged files (notiflow/metrics.py), never this process's values alone.
REGISTRY = CollectorRegistry(auto_describe=True)

# Seconds: a step is milliseconds (a provider call up to its timeout); lateness reaches minutes
# when workers fall behind or are missing.
STEP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
LATENESS_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600)

STEPS = Counter(
    "notiflow_steps",
    "Steps executed, by workflow, node type and outcome (done, skipped, waits, retry, failed, "
    "put_back: a provider's rate limit, not an attempt).",
    ["workflow", "node_type", "outcome"],
    registry=REGISTRY,
)
STEP_SECONDS = Histogram(
    "notiflow_step_duration_seconds",
    "A step's duration in the worker, from its claim to its release.",
    ["node_type"],
    buckets=STEP_BUCKETS,
    registry=REGISTRY,
)
STEP_LATENESS = Histogram(
    "notiflow_step_lateness_seconds",
    "How late a due step was claimed: the claim's time minus the run's available_at.",
    ["workflow"],
    buckets=LATENESS_BUCKETS,
    registry=REGISTRY,
)
RUNS_FINISHED = Counter(
    "notiflow_runs_finished",
    "Runs that ended (completed or failed) in a worker, by workflow and status.",
    ["workflow", "status"],
    registry=REGISTRY,
)
PROVIDER_CALLS = Counter(
    "notiflow_provider_calls",
    "Calls of a provider, by channel, provider and outcome (sent, transient, permanent, "
    "rate_limited).",
    ["channel", "provider", "outcome"],
    registry=REGISTRY,
)
PROVIDER_SECONDS = Histogram(
    "notiflow_provider_call_duration_seconds",
    "A provider call's duration, whatever its outcome.",
    ["channel", "provider"],
    buckets=STEP_BUCKETS,
    registry=REGISTRY,
)
PROVIDER_FAILOVERS = Counter(
    "notiflow_provider_failovers",
    "Send attempts that went to another provider than the node's first because earlier attempts "
    "failed (docs/design/channels.md, 'Providers'), by channel and the provider taking over.",
    ["channel", "provider"],
    registry=REGISTRY,
)
RATE_LIMIT_WAITS = Counter(
    "notiflow_rate_limit_waits",
    "Steps put back because a provider's rate limit (ours or its 429) had no token, by provider.",
    ["provider"],
    registry=REGISTRY,
)
RATE_LIMIT_WAIT_SECONDS = Counter(
    "notiflow_rate_limit_wait_seconds",
    "The waits those put-backs asked for, summed, by provider.",
    ["provider"],
    registry=REGISTRY,
)
WEBHOOK_DELIVERIES = Counter(
    "notiflow_webhook_deliveries",
    "Webhook delivery attempts, by outcome (delivered, failed, gone).",
    ["outcome"],
    registry=REGISTRY,
)
WEBHOOK_SECONDS = Histogram(
    "notiflow_webhook_delivery_duration_seconds",
    "A webhook POST's duration, by outcome.",
    ["outcome"],
    buckets=STEP_BUCKETS,
    registry=REGISTRY,
)
INTAKE_REQUESTS = Counter(
    "notiflow_intake_requests",
    "Trigger intake requests (POST /api/triggers/ and /api/triggers/bulk/), by endpoint and "
    "HTTP status code.",
    ["endpoint", "code"],
    registry=REGISTRY,
)
EVENTS_POSTED = Counter(
    "notiflow_events_posted",
    "Events posted (the API, the admin, a message's delivery report or in-app mark), by outcome: "
    "created, same "
    "(its id again with the same data), conflict (its id again with other data).",
    ["outcome"],
    registry=REGISTRY,
)
EVENTS_MATCHED = Counter(
    "notiflow_events_matched",
    "Posted events that resumed at least one waiting run, by outcome (created, same).",
    ["outcome"],
    registry=REGISTRY,
)
WAITS_RESUMED = Counter(
    "notiflow_waits_resumed",
    "Waiting runs resumed, by reason: event (a posted event matched their wait) or timeout "
    "(the sweeper, past the wait's deadline).",
    ["reason"],
    registry=REGISTRY,
)
FANOUT_RUNS_CREATED = Counter(
    "notiflow_fanout_runs_created",
    "Runs the fan-outs' chunks created, by workflow.",
    ["workflow"],
    registry=REGISTRY,
)
DELIVERY_EVENTS = Counter(
    "notiflow_delivery_events",
    "Providers' reports stored about sent messages (delivered, opened, clicked, bounced, "
    "complained, unsubscribed...), by workflow, channel and event (anymail's event names; any "
    "other word is `unknown`). A redelivered report is not counted again.",
    ["workflow", "channel", "event"],
    registry=REGISTRY,
)
STREAMS_OPEN = Gauge(
    "notiflow_streams_open",
    "Streams the web processes hold open, by stream (inbox: GET /api/inbox/stream/). Summed "
    "over the live processes only.",
    # A label even for one stream: a labelled value is made at its first use, by the value
    # class in force (a file, once metrics_process_start ran); an unlabelled one at import.
    ["stream"],
    multiprocess_mode="livesum",
    registry=REGISTRY,
)

_state = {"on": False}
# The labelled children already made, by metric and label values: `labels()` takes a lock and
# checks its arguments on every call, which is most of a record's cost (bench/metrics_cost.py).
_children: dict[tuple[object, tuple[str, ...]], Any] = {}


def _child(metric: Any, *labels: str) -> Any:
    key = (metric, labels)
    child = _children.get(key)
    if child is None:
        child = _children[key] = metric.labels(*labels)
    return child


def metrics_on() -> bool:
    """Whether this process records (metrics_process_start ran with a directory)."""
    return _state["on"]


def metrics_group_name(name: str) -> str:
    """A process group's directory name: `web@<address>`, or `worker-<node name>` made file-safe."""
    return re.sub(r"[^A-Za-z0-9_.@-]", "_", name)[:100] or "process"


def metrics_process_start(group: str, *, directory: str | None = None) -> Path | None:
    """Start recording for a process group, in its parent process before it forks: clean the
    group's directory under `directory` (NOTIFLOW_METRICS_DIR when None) and point
    prometheus_client at it. Returns the directory, or None (and records nothing) when no
    metrics directory is configured. Children forked afterwards record into their own files
    there (prometheus_client notices the new pid)."""
    base = settings.NOTIFLOW_METRICS_DIR if directory is None else directory
    if not base:
        _state["on"] = False
        return None
    path = Path(base) / metrics_group_name(group)
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True, exist_ok=True)
    os.environ.pop(MULTIPROC_VARIABLE, None)
    _forget_children()
    os.environ[MULTIPROC_VARIABLE] = str(path)
    # The value class prometheus_client chose when it was imported (in-process values unless the
    # variable was set by then), replaced by the file-backed one: values created from now on are
    # written to this group's files (docs/upgrading.md, guarded by tests/ops/test_metrics.py).
    values.ValueClass = values.MultiProcessValue()
    _state["on"] = True
    logger.info("metrics: this process group records into %s", path)
    return path


def metrics_process_dead(pid: int) -> None:
    """Leave out of the `livesum` gauges a process of this group that ended (its parent, when
    it reaps it): its open streams closed with it."""
    if _state["on"]:
        multiprocess.mark_process_dead(pid)


def metrics_process_stop() -> None:
    """Stop recording (tests): in-process values again, nothing written."""
    values.close_all_multiprocess_files()
    values.ValueClass = values.MutexValue
    os.environ.pop(MULTIPROC_VARIABLE, None)
    _forget_children()
    _state["on"] = False


def _forget_children() -> None:
    # A labelled metric keeps the values it created per label set; forgetting them makes the
    # next use create them with the value class now in force. (Called while the variable is
    # unset: prometheus_client warns about clearing in multiprocess mode, where a cleared value's
    # file would still be read; here the group's files are new or gone.)
    _children.clear()
    for metric in ALL_METRICS:
        metric.clear()


ALL_METRICS = (
    STEPS,
    STEP_SECONDS,
    STEP_LATENESS,
    RUNS_FINISHED,
    PROVIDER_CALLS,
    PROVIDER_SECONDS,
    PROVIDER_FAILOVERS,
    RATE_LIMIT_WAITS,
    RATE_LIMIT_WAIT_SECONDS,
    WEBHOOK_DELIVERIES,
    WEBHOOK_SECONDS,
    INTAKE_REQUESTS,
    EVENTS_POSTED,
    EVENTS_MATCHED,
    WAITS_RESUMED,
    FANOUT_RUNS_CREATED,
    DELIVERY_EVENTS,
    STREAMS_OPEN,
)


# --- what the code records (each returns at once when metrics are off) ---------------------------


def step_observe(
    *, workflow: str, node_type: str, outcome: str, seconds: float, finished: str | None
) -> None:
    """A step's outcome and duration; `finished` is the run's status when the step ended it."""
    if not _state["on"]:
        return
    _child(STEPS, workflow, node_type, outcome).inc()
    _child(STEP_SECONDS, node_type).observe(seconds)
    if finished:
        _child(RUNS_FINISHED, workflow, finished).inc()


def step_lateness_observe(*, workflow: str, seconds: float) -> None:
    if _state["on"]:
        _child(STEP_LATENESS, workflow).observe(max(seconds, 0.0))


def provider_call_observe(
    *, channel: str, provider: str, outcome: str, seconds: float, failover: bool = False
) -> None:
    if not _state["on"]:
        return
    _child(PROVIDER_CALLS, channel, provider, outcome).inc()
    _child(PROVIDER_SECONDS, channel, provider).observe(seconds)
    if failover:
        _child(PROVIDER_FAILOVERS, channel, provider).inc()


def rate_limit_wait_observe(*, provider: str, seconds: float) -> None:
    if _state["on"]:
        _child(RATE_LIMIT_WAITS, provider).inc()
        _child(RATE_LIMIT_WAIT_SECONDS, provider).inc(max(seconds, 0.0))


def webhook_delivery_observe(*, outcome: str, seconds: float) -> None:
    if _state["on"]:
        _child(WEBHOOK_DELIVERIES, outcome).inc()
        _child(WEBHOOK_SECONDS, outcome).observe(seconds)


def intake_request_observe(*, endpoint: str, code: int) -> None:
    if _state["on"]:
        _child(INTAKE_REQUESTS, endpoint, str(code)).inc()


def event_posted_observe(*, outcome: str, resumed: int) -> None:
    """An event posted: its outcome, whether it matched, and the runs it resumed."""
    if not _state["on"]:
        return
    _child(EVENTS_POSTED, outcome).inc()
    if resumed:
        _child(EVENTS_MATCHED, outcome).inc()
        _child(WAITS_RESUMED, "event").inc(resumed)


def waits_timed_out_observe(*, resumed: int) -> None:
    if _state["on"] and resumed:
        _child(WAITS_RESUMED, "timeout").inc(resumed)


def fanout_runs_observe(*, workflow: str, created: int) -> None:
    if _state["on"] and created:
        _child(FANOUT_RUNS_CREATED, workflow).inc(created)


# The event label's values: anymail's normalised event types (deliveries.receivers passes them as
# they are, deliveries.twilio maps Twilio's statuses onto them), so a provider's new word cannot
# make a new series.
DELIVERY_EVENT_NAMES = frozenset(
    value for name, value in vars(EventType).items() if name.isupper() and isinstance(value, str)
)


def delivery_event_observe(*, workflow: str, channel: str, event: str) -> None:
    """A provider's report stored (once) about a message of `workflow` on `channel`."""
    if _state["on"]:
        name = event if event in DELIVERY_EVENT_NAMES else "unknown"
        _child(DELIVERY_EVENTS, workflow, channel, name).inc()


def stream_open_observe(*, stream: str, change: int) -> None:
    """A stream opened (+1) or closed (-1) in this process."""
    if _state["on"]:
        _child(STREAMS_OPEN, stream).inc(change)
