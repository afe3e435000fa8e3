"""Prometheus metrics in-process (docs/design/observability.md, "Metrics"): the endpoint's token, the label
names (bounded cardinality), the multiprocess files of several processes in one scrape, the
gauges read from the database, and what a step records."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone
from prometheus_client import values

from common import metrics
from common.metrics import (
    ALL_METRICS,
    metrics_group_name,
    metrics_process_dead,
    metrics_process_start,
    metrics_process_stop,
)
from events.models import WebhookEndpoint
from notiflow.gunicorn_conf import metrics_group
from notiflow.metrics import GAUGES, DatabaseGauges, RecordedMetrics
from recipients.models import Fanout
from registry.services import worker_register
from tests.factories import chain, email_node, sms_node
from tests.ops.metrics_helpers import samples, total, value
from tests.workers.helpers import due_trigger, run_to_the_end
from triggers.models import TERMINAL_STATUSES, TriggerInstance, TriggerStatus
from waits.models import EventWait
from workers.errors import TransientError
from workers.providers import provider_for_attempt
from workers.services.step_metrics import provider_call_metered

TOKEN = "scrape-secret"

# Every metric's label names. Workflow keys, node types, channels, providers, outcomes and status
# codes are bounded by configuration; a trigger id, a recipient or a URL would grow with traffic
# and must never become a label (an endpoint is named by its id: bounded by configuration).
LABELS = {
    "notiflow_steps": ("workflow", "node_type", "outcome"),
    "notiflow_step_duration_seconds": ("node_type",),
    "notiflow_step_lateness_seconds": ("workflow",),
    "notiflow_runs_finished": ("workflow", "status"),
    "notiflow_provider_calls": ("channel", "provider", "outcome"),
    "notiflow_provider_call_duration_seconds": ("channel", "provider"),
    "notiflow_provider_failovers": ("channel", "provider"),
    "notiflow_rate_limit_waits": ("provider",),
    "notiflow_rate_limit_wait_seconds": ("provider",),
    "notiflow_webhook_deliveries": ("outcome",),
    "notiflow_webhook_delivery_duration_seconds": ("outcome",),
    "notiflow_intake_requests": ("endpoint", "code"),
    "notiflow_events_posted": ("outcome",),
    "notiflow_events_matched": ("outcome",),
    "notiflow_waits_resumed": ("reason",),
    "notiflow_fanout_runs_created": ("workflow",),
    "notiflow_delivery_events": ("workflow", "channel", "event"),
    "notiflow_streams_open": ("stream",),
    "notiflow_runs": ("workflow", "status"),
    "notiflow_runs_lease_expired": ("workflow",),
    "notiflow_queue_depth": ("queue", "state"),
    "notiflow_workers_live": ("queue",),
    "notiflow_webhook_endpoint_enabled": ("endpoint",),
    "notiflow_webhook_endpoint_failed_events": ("endpoint",),
    "notiflow_waits_overdue": (),
    "notiflow_fanouts_running": ("workflow",),
    "notiflow_step_log_partitions_ahead_seconds": (),
    "notiflow_metrics_database_seconds": (),
}
UNBOUNDED = {"trigger", "trigger_id", "run", "recipient", "email", "phone", "url", "to", "key"}


def test_every_metric_has_the_label_names_listed_and_none_unbounded():
    exported = {metric._name: tuple(metric._labelnames) for metric in ALL_METRICS}
    exported |= {name: tuple(labels) for name, (_, labels) in GAUGES.items()}

    assert exported == LABELS
    assert not {label for labels in exported.values() for label in labels} & UNBOUNDED


@pytest.fixture
def recording(tmp_path: Path, settings) -> Iterator[Path]:
    """This process records as a process group does, into a directory of the test's own, and
    GET /metrics reads it."""
    settings.NOTIFLOW_METRICS_DIR = str(tmp_path)
    settings.NOTIFLOW_METRICS_TOKEN = TOKEN
    settings.NOTIFLOW_METRICS_CACHE_SECONDS = 0
    metrics_process_start("test", directory=str(tmp_path))
    yield tmp_path
    metrics_process_stop()


def scrape(client: Client, token: str | None = TOKEN) -> dict:
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    response = client.get("/metrics", **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return samples(response.content.decode())


# What Prometheus sends on a scrape: 3.x (scrape_protocols' default) and 2.x.
PROMETHEUS_ACCEPTS = [
    "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8,"
    "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=1.0.0;"
    "escaping=allow-utf-8;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1",
    "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
    "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
]


@pytest.mark.django_db
@pytest.mark.parametrize("accept", PROMETHEUS_ACCEPTS)
def test_a_prometheus_scrape_with_its_accept_header_gets_the_text_format(client, settings, accept):
    settings.NOTIFLOW_METRICS_TOKEN = TOKEN
    settings.NOTIFLOW_METRICS_DIR = ""

    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}", HTTP_ACCEPT=accept)

    assert response.status_code == 200
    # Prometheus takes text/plain of any version with its text parser.
    assert response["Content-Type"].startswith("text/plain; version=")
    assert value(samples(response.content.decode()), "notiflow_metrics_database_seconds")


def test_without_a_token_configured_the_endpoint_is_off(client, settings):
    settings.NOTIFLOW_METRICS_TOKEN = ""

    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer anything").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("header", [None, "Bearer wrong", f"Basic {TOKEN}", TOKEN])
def test_a_scrape_without_the_right_bearer_token_is_refused(client, settings, header):
    settings.NOTIFLOW_METRICS_TOKEN = TOKEN
    extra = {"HTTP_AUTHORIZATION": header} if header else {}

    response = client.get("/metrics", **extra)

    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert b"notiflow_" not in response.content


def test_one_read_shows_every_process_group_and_their_forked_children(tmp_path):
    """What a gunicorn master or a Celery main process does: start its group (cleaning its
    directory), fork children that record; the web process's read merges every file."""
    try:
        for group in ("web", "worker-a@host"):
            metrics_process_start(group, directory=str(tmp_path))
            for _ in range(2):  # two children of the group, as prefork makes them
                pid = os.fork()
                if pid == 0:  # pragma: no cover (the child)
                    metrics.intake_request_observe(endpoint="trigger", code=201)
                    os._exit(0)
                assert os.waitpid(pid, 0)[1] == 0
        stale = tmp_path / "worker-a@host" / "counter_1.db"
        stale.write_bytes((tmp_path / "web" / sorted(os.listdir(tmp_path / "web"))[0]).read_bytes())
        # A restart of one group cleans its own directory and no other's.
        metrics_process_start("worker-a@host", directory=str(tmp_path))
        assert not stale.exists() and not list((tmp_path / "worker-a@host").iterdir())
        metrics.intake_request_observe(endpoint="bulk", code=400)
    finally:
        metrics_process_stop()

    parsed = {
        (s.name, frozenset(s.labels.items())): s.value
        for family in RecordedMetrics(str(tmp_path)).collect()
        for s in family.samples
    }
    assert value(parsed, "notiflow_intake_requests_total", endpoint="trigger", code="201") == 2
    assert value(parsed, "notiflow_intake_requests_total", endpoint="bulk", code="400") == 1
    assert values.ValueClass is values.MutexValue  # stopped: nothing written any more


@pytest.mark.django_db
def test_a_step_records_its_outcome_duration_lateness_and_provider_call(client, recording):
    definition = chain(email_node("mail"), sms_node("text"))

    trigger = run_to_the_end(
        definition, {"email": "a@example.com", "name": "Al", "phone": "+15550199"}
    )

    assert trigger.status == "completed"
    key = trigger.workflow.key
    parsed = scrape(client)
    for node_type in ("email", "sms"):
        assert (
            value(parsed, "notiflow_steps_total", workflow=key, node_type=node_type, outcome="done")
            == 1
        )
        assert total(parsed, "notiflow_step_duration_seconds_count", node_type=node_type) >= 1
    assert value(parsed, "notiflow_runs_finished_total", workflow=key, status="completed") == 1
    assert value(parsed, "notiflow_step_lateness_seconds_count", workflow=key) == 2
    # due_trigger made the first step due a second before its claim
    assert value(parsed, "notiflow_step_lateness_seconds_sum", workflow=key) >= 0.9
    assert total(parsed, "notiflow_provider_calls_total", channel="email", outcome="sent") == 1
    assert total(parsed, "notiflow_provider_call_duration_seconds_count", channel="sms") == 1


@pytest.mark.django_db
def test_a_failed_step_counts_as_failed_and_finishes_its_run_failed(client, recording):
    trigger = run_to_the_end(chain(email_node("mail", to="{{ payload.nobody }}")), {})

    assert trigger.status == "failed"
    parsed = scrape(client)
    key = trigger.workflow.key
    assert (
        value(parsed, "notiflow_steps_total", workflow=key, node_type="email", outcome="failed")
        == 1
    )
    assert value(parsed, "notiflow_runs_finished_total", workflow=key, status="failed") == 1


@pytest.mark.django_db
def test_without_a_metrics_directory_nothing_is_recorded(client, settings):
    settings.NOTIFLOW_METRICS_TOKEN = TOKEN
    settings.NOTIFLOW_METRICS_DIR = ""
    settings.NOTIFLOW_METRICS_CACHE_SECONDS = 0

    run_to_the_end(chain(email_node("mail")), {"email": "a@example.com", "name": "Al"})

    parsed = scrape(client)
    assert not any(name.startswith("notiflow_steps") for name, _ in parsed)
    assert value(parsed, "notiflow_metrics_database_seconds") is not None


@pytest.mark.django_db
def test_the_gauges_read_runs_queues_workers_and_endpoints_from_the_database(client, settings):
    settings.NOTIFLOW_METRICS_TOKEN = TOKEN
    settings.NOTIFLOW_METRICS_DIR = ""
    settings.NOTIFLOW_METRICS_CACHE_SECONDS = 0
    now = timezone.now()
    due = due_trigger()
    TriggerInstance.objects.filter(pk=due.pk).update(available_at=now - timedelta(hours=1))
    workflow, version = due.workflow, due.workflow_version
    # A queue of its own: the depth gauge counts every run on a queue, and `default` may hold
    # runs another test of this process committed.
    workflow.queue = f"q-{workflow.key}"
    workflow.save(update_fields=["queue"])

    def run(**fields) -> None:
        TriggerInstance.objects.create(
            workflow=workflow,
            workflow_version=version,
            idempotency_key=f"k{TriggerInstance.objects.count()}",
            current_node_id="mail",
            **fields,
        )

    run(status="enqueued", available_at=now + timedelta(hours=1))
    run(status="processing", available_at=now, lease_until=now - timedelta(hours=1))
    run(status="processing", available_at=now, lease_until=now + timedelta(hours=1))
    run(status="completed", available_at=now)
    run(status="enqueued", available_at=now - timedelta(hours=1), deleted_at=now)
    worker_register(
        name="w1@h", host="h", pid=1, queues=["default", "other"], concurrency=1,
        node_types=[], providers={}, version="t",
    )  # fmt: skip
    endpoint = WebhookEndpoint.objects.create(
        url="https://hooks.example.com/x", events=["run.failed"], secret="s", failed_events=3,
        disabled_at=now,
    )  # fmt: skip

    parsed = scrape(client)

    key, queue = workflow.key, workflow.queue
    assert value(parsed, "notiflow_runs", workflow=key, status="enqueued") == 2
    assert value(parsed, "notiflow_runs", workflow=key, status="processing") == 2
    assert value(parsed, "notiflow_runs_lease_expired", workflow=key) == 1
    assert value(parsed, "notiflow_queue_depth", queue=queue, state="due") == 1
    assert value(parsed, "notiflow_queue_depth", queue=queue, state="waiting") == 1
    assert value(parsed, "notiflow_workers_live", queue="other") == 1
    if queue != "default":  # the workflow's queue, served by nobody
        assert value(parsed, "notiflow_workers_live", queue=queue) == 0
    assert value(parsed, "notiflow_webhook_endpoint_enabled", endpoint=str(endpoint.pk)) == 0
    failed = value(parsed, "notiflow_webhook_endpoint_failed_events", endpoint=str(endpoint.pk))
    assert failed == 3


def test_the_gauges_are_read_at_most_once_per_cache_period(settings):
    settings.NOTIFLOW_METRICS_CACHE_SECONDS = 10
    reads: list[int] = []

    def read() -> list:
        reads.append(1)
        return []

    gauges = DatabaseGauges(read=read)
    now = [100.0]
    gauges.clock = lambda: now[0]

    gauges.collect()
    now[0] += 9.9
    gauges.collect()
    assert len(reads) == 1
    now[0] += 0.1
    gauges.collect()
    assert len(reads) == 2


def test_each_gunicorn_instance_on_a_host_has_a_group_of_its_own():
    """Two web processes on one host (a second instance with other settings) listen on
    different addresses; a group named after the address means the second one starting does
    not clean the first one's files (notiflow/gunicorn_conf.py)."""
    first, second = metrics_group(["127.0.0.1:8000"]), metrics_group(["127.0.0.1:8001"])
    assert first != second and first.startswith("web@")
    assert metrics_group_name(first) != metrics_group_name(second)


@pytest.mark.django_db
def test_a_provider_call_is_metered_only_while_recording_and_counts_a_failover(
    client, settings, tmp_path
):
    """Off (the hot path's common case) every call gets the same do-nothing context; on, an
    attempt that the round robin sent past the node's first provider counts as a failover."""
    settings.NOTIFLOW_EMAIL_PROVIDERS = ["ses", "backup"]
    settings.NOTIFLOW_PROVIDER_SETTINGS = {
        "backup": {"backend": "smtp", "options": {"host": "127.0.0.1", "port": 2525}}
    }
    backup = provider_for_attempt("email", named="", attempts=1)
    off = [
        provider_call_metered(channel="email", provider=backup, named="", attempts=n)
        for n in range(2)
    ]
    assert off[0] is off[1]

    settings.NOTIFLOW_METRICS_DIR = str(tmp_path)
    settings.NOTIFLOW_METRICS_TOKEN = TOKEN
    settings.NOTIFLOW_METRICS_CACHE_SECONDS = 0
    metrics_process_start("test", directory=str(tmp_path))
    try:
        # attempt 1 of a node naming no provider: the backup, after the first provider (ses)
        with provider_call_metered(channel="email", provider=backup, named="", attempts=1):
            pass
        # attempt 0 of a node naming the backup: its first provider, no failover
        with provider_call_metered(channel="email", provider=backup, named="backup", attempts=0):
            pass
        with (
            pytest.raises(TransientError),
            provider_call_metered(channel="email", provider=backup, named="", attempts=1),
        ):
            raise TransientError("refused")
        parsed = scrape(client)
    finally:
        metrics_process_stop()
    assert total(parsed, "notiflow_provider_failovers_total", provider="backup") == 2
    assert total(parsed, "notiflow_provider_calls_total", provider="backup", outcome="sent") == 2
    assert (
        total(parsed, "notiflow_provider_calls_total", provider="backup", outcome="transient") == 1
    )


@pytest.mark.django_db
def test_the_gauges_count_waiting_runs_overdue_waits_and_running_fanouts(client, settings):
    settings.NOTIFLOW_METRICS_TOKEN = TOKEN
    settings.NOTIFLOW_METRICS_DIR = ""
    settings.NOTIFLOW_METRICS_CACHE_SECONDS = 0
    parked = due_trigger()
    TriggerInstance.objects.filter(pk=parked.pk).update(status="waiting")
    now, key = timezone.now(), parked.workflow.key
    for trigger_id, deadline, resolved_at in [
        (parked.pk, now - timedelta(minutes=1), None),  # overdue
        (uuid.uuid4(), now + timedelta(hours=1), None),  # not yet
        (uuid.uuid4(), now - timedelta(hours=1), now),  # resolved
    ]:
        EventWait.objects.create(
            trigger_id=trigger_id, node_id="paid", workflow_id=parked.workflow_id, name="paid",
            match_hash="h", deadline=deadline, resolved_at=resolved_at,
        )  # fmt: skip
    for status in ("running", "running", "done"):
        Fanout.objects.create(
            workflow_key=key, topic_key="t", idempotency_key=f"k-{status}-{uuid.uuid4()}",
            request_hash="h", status=status,
        )  # fmt: skip

    parsed = scrape(client)

    assert value(parsed, "notiflow_runs", workflow=key, status="waiting") == 1
    assert value(parsed, "notiflow_runs", workflow=key, status="enqueued") == 0
    assert value(parsed, "notiflow_waits_overdue") == 1
    assert value(parsed, "notiflow_fanouts_running", workflow=key) == 2
    # The test database's partitions reach a week ahead, as beat keeps them.
    assert 6 * 86400 < value(parsed, "notiflow_step_log_partitions_ahead_seconds") <= 9 * 86400
    # Every status not final is a value of notiflow_runs: a new one cannot be left out.
    statuses = {dict(labels)["status"] for name, labels in parsed if name == "notiflow_runs"}
    assert statuses == {s.value for s in TriggerStatus} - set(TERMINAL_STATUSES)


def test_the_open_streams_of_a_process_that_ended_are_left_out(tmp_path):
    """A web worker that died with streams open never closed them: its parent (gunicorn's
    child_exit) leaves its file out of the `livesum` gauge."""
    try:
        metrics_process_start("web", directory=str(tmp_path))
        metrics.stream_open_observe(stream="inbox", change=1)
        pid = os.fork()
        if pid == 0:  # pragma: no cover (the child)
            for _ in range(3):
                metrics.stream_open_observe(stream="inbox", change=1)
            os._exit(0)
        assert os.waitpid(pid, 0)[1] == 0

        def open_streams() -> float | None:
            families = RecordedMetrics(str(tmp_path)).collect()
            parsed = {
                (s.name, frozenset(s.labels.items())): s.value for f in families for s in f.samples
            }
            return value(parsed, "notiflow_streams_open", stream="inbox")

        assert open_streams() == 4
        metrics_process_dead(pid)
        assert open_streams() == 1
    finally:
        metrics_process_stop()
