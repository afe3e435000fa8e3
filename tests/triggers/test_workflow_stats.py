"""Per-workflow statistics from the database (triggers/selectors.py, workflow_stats): triggers by
status, what waits for a worker, and the last hour's success rate and p50/p95 run time, the same
in the API, the admin's workflow page and `manage.py notiflow_stats --workflow`."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from tests.factories import WorkflowFactory, chain, delay_node
from tests.registry.support import registered
from triggers.models import TriggerInstance, TriggerStatus
from triggers.selectors import workflow_stats

pytestmark = pytest.mark.django_db


def run(workflow, key: str, status: str, **times) -> TriggerInstance:
    return TriggerInstance.objects.create(
        workflow=workflow,
        workflow_version=workflow.current_version,
        idempotency_key=key,
        status=status,
        current_node_id=None if status in ("completed", "failed") else "wait",
        available_at=times.pop("available_at", timezone.now()),
        **times,
    )


@pytest.fixture
def known(db):
    """A workflow with runs of known times: 20 completed within the hour taking 1..20 s, 5 failed
    within the hour, 2 completed 2 hours ago (outside), 3 due and unclaimed, 1 waiting for a
    delay, 1 due but deleted, 1 processing, 1 cancelled; and another workflow's runs."""
    workflow = WorkflowFactory(key="stats-known", definition=chain(delay_node()))
    now = timezone.now()
    for seconds in range(1, 21):
        created = now - timedelta(minutes=30)
        trigger = run(workflow, f"done-{seconds}", "completed")
        TriggerInstance.objects.filter(pk=trigger.pk).update(
            created_at=created, completed_at=created + timedelta(seconds=seconds)
        )
    for i in range(5):
        trigger = run(workflow, f"failed-{i}", "failed")
        TriggerInstance.objects.filter(pk=trigger.pk).update(
            completed_at=now - timedelta(minutes=5)
        )
    for i in range(2):
        trigger = run(workflow, f"old-{i}", "completed")
        TriggerInstance.objects.filter(pk=trigger.pk).update(
            created_at=now - timedelta(hours=2, seconds=500), completed_at=now - timedelta(hours=2)
        )
    for i in range(3):
        run(workflow, f"due-{i}", "enqueued", available_at=now - timedelta(seconds=10))
    run(workflow, "later", "enqueued", available_at=now + timedelta(hours=1))
    run(workflow, "deleted", "enqueued", available_at=now - timedelta(seconds=10), deleted_at=now)
    run(workflow, "running", "processing")
    run(workflow, "stopped", "cancelled")
    other = WorkflowFactory(key="stats-other", definition=chain(delay_node()))
    run(other, "x", "enqueued", available_at=now - timedelta(seconds=10))
    registered("a@h", queues=("default",))
    return workflow, now


def test_stats_count_by_status_depth_rate_and_percentiles_from_known_runs(known):
    workflow, now = known
    stats = workflow_stats(workflow=workflow, now=now)
    assert stats.by_status == {
        **dict.fromkeys(TriggerStatus.values, 0),  # every status, a new one too
        TriggerStatus.ENQUEUED: 4,  # the deleted one is not counted
        TriggerStatus.PROCESSING: 1,
        TriggerStatus.COMPLETED: 22,
        TriggerStatus.FAILED: 5,
        TriggerStatus.CANCELLED: 1,
    }
    assert stats.queue_depth == 3  # due and unclaimed; not the delayed one, not the deleted one
    assert (stats.completed, stats.failed) == (20, 5)  # the two old runs are outside the hour
    assert stats.success_rate == 0.8
    # percentile_cont over 1..20 s: the median between 10 and 11, p95 at 19 + 0.05.
    assert stats.p50_seconds == pytest.approx(10.5)
    assert stats.p95_seconds == pytest.approx(19.05)
    assert (stats.queue, stats.live_workers) == ("default", 1)


def test_a_workflow_without_finished_runs_has_no_rate_and_no_durations():
    workflow = WorkflowFactory(key="stats-empty", definition=chain(delay_node()))
    stats = workflow_stats(workflow=workflow)
    assert stats.success_rate is None and stats.p50_seconds is None and stats.p95_seconds is None
    assert stats.queue_depth == 0 and sum(stats.by_status.values()) == 0


def test_the_stats_api_answers_with_the_same_numbers(known, api_client):
    workflow, _ = known
    response = api_client.get(f"/api/workflows/{workflow.key}/stats/")
    assert response.status_code == 200
    body = response.json()
    assert (body["workflow"], body["queue"], body["queue_depth"]) == ("stats-known", "default", 3)
    assert body["by_status"]["completed"] == 22 and body["live_workers"] == 1
    hour = body["last_hour"]
    assert hour["window_seconds"] == 3600 and (hour["completed"], hour["failed"]) == (20, 5)
    assert hour["success_rate"] == 0.8
    assert hour["p50_seconds"] == pytest.approx(10.5, abs=0.01)
    assert hour["p95_seconds"] == pytest.approx(19.05, abs=0.01)
    assert api_client.get("/api/workflows/no-such-workflow/stats/").status_code == 404


def test_the_stats_api_needs_an_api_key(known):
    from rest_framework.test import APIClient

    assert APIClient().get("/api/workflows/stats-known/stats/").status_code == 401


def test_the_workflow_admin_page_shows_the_stats(known, admin_client):
    workflow, _ = known
    page = admin_client.get(reverse("admin:workflows_workflow_change", args=[workflow.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="run-stats"' in html
    assert "20 completed, 5 failed; success rate 80.0%" in html
    assert "p50 10.5 s, p95 19.1 s" in html
    assert "3 due, not yet claimed" in html
    assert f"workflow__id__exact={workflow.pk}&amp;status__exact=failed" in html


def test_notiflow_stats_prints_one_workflows_lines_and_json(known):
    out = StringIO()
    call_command("notiflow_stats", "--workflow", "stats-known", stdout=out)
    text = out.getvalue()
    assert "Workflow stats-known, queue default" in text
    assert "Waiting for a worker (due, not claimed): 3" in text
    assert "Last hour: 20 completed, 5 failed, success rate 80.0%" in text
    assert "Run time: p50 10.500s, p95 19.050s" in text

    out = StringIO()
    call_command("notiflow_stats", "--workflow", "stats-known", "--json", stdout=out)
    body = json.loads(out.getvalue())
    assert body["last_hour"]["success_rate"] == 0.8 and body["queue_depth"] == 3

    with pytest.raises(CommandError, match="no workflow with the key 'nope'"):
        call_command("notiflow_stats", "--workflow", "nope")
