"""A workflow's 24-hour charts on its admin page (triggers/charts.py, issue 36): the numbers come
from its real rows (runs by the hour they ended, their run times, the lateness of their first
step, sends by provider) and the page draws them as SVG, cached a minute."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import WorkflowFactory, chain, email_node
from triggers.charts import CHART_HOURS, workflow_charts, workflow_charts_cached
from triggers.models import TriggerInstance
from workers.models import SendLedger, StepExecutionLog

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 25, 12, 30, tzinfo=UTC)
TEN, ELEVEN = datetime(2026, 11, 25, 10, tzinfo=UTC), datetime(2026, 11, 25, 11, tzinfo=UTC)


def ended_run(workflow, status, created, *, took, first_step=None, sent=(), deleted=False):
    """A finished run `took` seconds long, its first step `first_step` seconds after creation
    (then a second one), and its sends: (provider, seconds after creation)."""
    run = TriggerInstance.objects.create(
        workflow=workflow,
        workflow_version=workflow.current_version,
        idempotency_key=f"{status}-{created.isoformat()}",
        status=status,
        available_at=created,
        deleted_at=created if deleted else None,
    )
    TriggerInstance.objects.filter(pk=run.pk).update(
        created_at=created, completed_at=created + timedelta(seconds=took)
    )
    if first_step is not None:
        for n, after in enumerate((first_step, first_step + 0.5)):
            started = created + timedelta(seconds=after)
            StepExecutionLog.objects.create(
                trigger=run,
                workflow=workflow,
                node_id=f"n{n}",
                node_type="email",
                attempt=1,
                started_at=started,
                finished_at=started,
                input={},
                success=True,
            )
    for n, (provider, after) in enumerate(sent):
        SendLedger.objects.create(
            trigger=run,
            node_id=f"send{n}",
            idempotency_key=f"{run.pk}-{n}",
            channel="email",
            status="sent",
            provider=provider,
            sent_at=created + timedelta(seconds=after),
        )
    return run


@pytest.fixture
def known():
    workflow = WorkflowFactory(definition=chain(email_node()))
    ended_run(workflow, "completed", TEN, took=4, first_step=1, sent=[("smtp", 2)])
    ended_run(
        workflow,
        "completed",
        TEN + timedelta(minutes=10),
        took=10,
        first_step=3,
        sent=[("ses", 5), ("smtp", 6)],
    )
    ended_run(workflow, "failed", ELEVEN, took=2, first_step=0.5, sent=[("smtp", 1)])
    ended_run(workflow, "completed", NOW - timedelta(days=2), took=1, first_step=0)  # too old
    ended_run(workflow, "completed", TEN, took=50, first_step=40, deleted=True)  # deleted
    ended_run(WorkflowFactory(), "completed", TEN, took=70, first_step=60)  # another workflow
    # Still running: no end, no bar.
    TriggerInstance.objects.create(
        workflow=workflow,
        workflow_version=workflow.current_version,
        idempotency_key="running",
        status="processing",
        available_at=NOW,
    )
    return workflow


def test_the_charts_count_the_hours_runs_ended_in_with_their_times_and_sends(known):
    charts = workflow_charts(workflow=known, now=NOW)
    assert len(charts.hours) == CHART_HOURS and charts.hours[-1] == datetime(
        2026, 11, 25, 12, tzinfo=UTC
    )
    at = {hour: i for i, hour in enumerate(charts.hours)}
    ten, eleven = at[TEN], at[ELEVEN]
    assert sum(charts.completed) == 2 and charts.completed[ten] == 2
    assert sum(charts.failed) == 1 and charts.failed[eleven] == 1
    # Run times 4 s and 10 s: p50 7, p95 4 + 0.95 * 6 (percentile_cont interpolates).
    assert charts.p50_seconds[ten] == pytest.approx(7)
    assert charts.p95_seconds[ten] == pytest.approx(9.7)
    assert charts.p50_seconds[eleven] is None  # a failed run has no run time
    # First steps 1 s and 3 s after creation: p99 1 + 0.99 * 2; the failed run's 0.5 s counts.
    assert charts.lateness_p99_seconds[ten] == pytest.approx(2.98)
    assert charts.lateness_p99_seconds[eleven] == pytest.approx(0.5)
    assert [i for i, v in enumerate(charts.p50_seconds) if v is not None] == [ten]
    assert charts.sends == {
        "ses": [1 if i == ten else 0 for i in range(CHART_HOURS)],
        "smtp": [2 if i == ten else 1 if i == eleven else 0 for i in range(CHART_HOURS)],
    }


def test_the_charts_are_two_queries_and_cached_for_the_minute(known):
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        first = workflow_charts_cached(workflow=known, now=NOW)
    assert len(queries) == 2
    ended_run(known, "failed", ELEVEN + timedelta(minutes=5), took=1)
    with CaptureQueriesContext(connection) as queries:
        again = workflow_charts_cached(workflow=known, now=NOW + timedelta(seconds=20))
    assert len(queries) == 0 and again == first
    later = workflow_charts_cached(workflow=known, now=NOW + timedelta(minutes=1))
    assert later.failed[later.hours.index(ELEVEN)] == 2


def test_the_workflow_page_draws_the_charts_as_svg(known, admin_client):
    cache.clear()
    # The page's hours are the current ones: a run that ended a minute ago is in the last bar.
    ended_run(
        known,
        "completed",
        datetime.now(UTC) - timedelta(minutes=1),
        took=30,
        first_step=2,
        sent=[("twilio", 3)],
    )
    html = admin_client.get(f"/admin/workflows/workflow/{known.pk}/change/").content.decode()
    panel = html[html.index('id="run-charts"') :]
    end = panel.find('<div class="module panel"')  # the next panel (the funnel's)
    panel = panel if end < 0 else panel[:end]
    assert panel.count('<svg class="nf-chart"') == 4
    for title in ("Runs ended per hour", "Run time", "Lateness p99", "Sends per provider"):
        assert title in panel
    # The fixture's runs may be in the page's 24 hours too (they ended today): the last hour is
    # the one-minute-old run's alone.
    assert series(panel, "completed")[-1] == "1" and series(panel, "twilio")[-1] == "1"
    assert series(panel, "twilio")[:-1] == ["0"] * (CHART_HOURS - 1)
    assert series(panel, "p95")[-1] == "30" and len(series(panel, "p95")) == CHART_HOURS


def series(panel: str, name: str) -> list[str]:
    found = re.search(f'data-name="{name}" data-values="([^"]*)"', panel)
    assert found, name
    return found.group(1).split()
