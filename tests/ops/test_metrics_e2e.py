"""Metrics with real processes (docs/design/observability.md, "Metrics"): gunicorn's workers and the Celery
workers' prefork children record, and one scrape of the web process shows them all."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests
from django.conf import settings
from django.utils import timezone

from common.metrics import metrics_group_name
from notiflow.gunicorn_conf import metrics_group
from recipients.models import Recipient
from tests.conftest import STACK_SETTINGS, STACK_WORKERS, unique
from tests.factories import WorkflowFactory, chain, delay_node, email_node, sms_node
from tests.inbox.support import StreamReader, stack_headers
from tests.ops.metrics_helpers import samples, total, value
from tests.support.stack import Stack, wait_for
from tests.triggers.test_fanout_e2e import audience
from tests.waits.test_wait_event_e2e import waiting, waiting_workflow
from tests.workers.helpers import fire, wait_terminal
from waits.models import EventWait

pytestmark = pytest.mark.e2e

TOKEN = STACK_SETTINGS["NOTIFLOW_METRICS_TOKEN"]


def scrape(stack: Stack, token: str | None = TOKEN) -> requests.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.get(f"{stack.base_url}/metrics", headers=headers, timeout=10)


def test_one_scrape_shows_what_the_web_and_the_workers_prefork_children_recorded(e2e, api):
    workflow = WorkflowFactory(
        key=unique("metered"), definition=chain(email_node("mail"), sms_node("text"))
    )
    payload = {"email": f"{unique('m')}@example.com", "name": "Ada", "phone": "+15550100"}
    runs = [fire(api, workflow, payload) for _ in range(3)]
    refused = api.post("/api/triggers/", {"workflow": workflow.key, "payload": {}, "oops": 1})
    assert refused.status_code == 400
    assert all(wait_terminal(run).status == "completed" for run in runs)

    def steps_seen() -> dict | None:
        parsed = samples(scrape(e2e).text)
        done = total(parsed, "notiflow_steps_total", workflow=workflow.key, outcome="done")
        return parsed if done == 6 else None

    parsed = wait_for(steps_seen, timeout=10, interval=0.2, message="6 steps in a scrape")
    key = workflow.key
    assert value(parsed, "notiflow_runs_finished_total", workflow=key, status="completed") == 3
    assert value(parsed, "notiflow_step_lateness_seconds_count", workflow=key) == 6
    assert total(parsed, "notiflow_provider_calls_total", channel="sms", outcome="sent") >= 3
    assert total(parsed, "notiflow_intake_requests_total", endpoint="trigger", code="201") >= 3
    assert total(parsed, "notiflow_intake_requests_total", endpoint="trigger", code="400") >= 1
    # The gauges, from the database: the stack's workers on their queues, nothing left to run.
    serving_default = sum("default" in queues for queues in STACK_WORKERS.values())
    assert value(parsed, "notiflow_workers_live", queue="default") == serving_default
    assert value(parsed, "notiflow_runs", workflow=key, status="processing") == 0

    # The steps ran in the workers' pool processes, which wrote files of their own: one per
    # process that recorded, under its group's directory.
    base = Path(e2e.env["NOTIFLOW_METRICS_DIR"])
    groups = {path.name for path in base.iterdir()}
    # The web group is named after its address: a second gunicorn on the stack (the rate-limit
    # and SendGrid tests start one) cleans a group of its own, not this one's files.
    assert metrics_group_name(metrics_group([e2e.base_url.removeprefix("http://")])) in groups
    assert {g for g in groups if g.startswith("worker-default@")}
    worker_pids = {
        int(path.stem.rsplit("_", 1)[1])
        for group in base.iterdir()
        if group.name.startswith("worker-")
        for path in group.glob("counter_*.db")
    }
    mains = {p.popen.pid for p in e2e.processes if p.name in STACK_WORKERS}
    assert worker_pids and not worker_pids & mains  # children, not the main processes


def test_the_endpoint_refuses_a_scrape_without_the_token(e2e):
    assert scrape(e2e, token=None).status_code == 401
    assert scrape(e2e, token="wrong").status_code == 401


def test_waits_events_fanouts_and_streams_move_their_metrics_on_the_stack(e2e, api):
    """Each where it happens: a run parks (the gauge of waiting runs), an event is posted and
    resumes it (the web), another wait times out (the workers' sweep), a fan-out creates its
    runs (the workers' chunks), an inbox stream is open (the web's ASGI loop)."""
    before = samples(scrape(e2e).text)
    name = unique("order.paid")
    workflow = waiting_workflow(name)
    paid, late = fire(api, workflow, {"order_id": "o-1"}), fire(api, workflow, {"order_id": "o-2"})
    for run in (paid, late):
        waiting(run)
    # The gauges are read from the database at most once per cache period in each web process:
    # a scrape soon after `before` may still show the gauges of before this workflow existed.
    wait_for(
        lambda: (
            value(
                samples(scrape(e2e).text), "notiflow_runs", workflow=workflow.key, status="waiting"
            )
            == 2
        ),
        timeout=settings.NOTIFLOW_METRICS_CACHE_SECONDS * 2 + 10,
        interval=0.5,
        message="the gauge counts the two waiting runs",
    )

    posted = {"name": name, "id": unique("e"), "data": {"order_id": "o-1"}}
    assert api.post("/api/events/", posted).json()["resumed"] == 1
    api.post("/api/events/", {**posted, "id": unique("e"), "data": {"order_id": "none"}})
    assert wait_terminal(paid).status == "completed"
    EventWait.objects.filter(trigger_id=late).update(deadline=timezone.now())
    assert wait_terminal(late, timeout=40).status == "completed"  # the sweeper's timeout

    audience_topic, _ = audience(3)
    fanned = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=0)))
    body = {"workflow": fanned.key, "idempotency_key": unique("news"), "topic": audience_topic}
    assert api.post("/api/triggers/", body).status_code == 202

    recipient = Recipient.objects.create(key=unique("person")).key
    reader = StreamReader(f"{e2e.base_url}/api/inbox/stream/", stack_headers(recipient))
    try:

        def moved() -> dict | None:
            now = samples(scrape(e2e).text)
            grew = [
                total(now, metric, **labels) - total(before, metric, **labels) >= by
                for metric, labels, by in GREW
            ]
            fanout = value(now, "notiflow_fanout_runs_created_total", workflow=fanned.key)
            # The gauges are read from the database at most once per cache period.
            parked = value(now, "notiflow_runs", workflow=workflow.key, status="waiting")
            return now if all(grew) and fanout == 3 and parked == 0 else None

        parsed = wait_for(moved, timeout=20, interval=0.3, message="every metric moved")
        assert value(parsed, "notiflow_streams_open", stream="inbox") >= 1
    finally:
        reader.close()
    wait_for(
        lambda: value(samples(scrape(e2e).text), "notiflow_streams_open", stream="inbox") == 0,
        timeout=10,
        message="the closed stream left out",
    )


# (counter, labels, by how much the test moves it at least)
GREW = [
    ("notiflow_events_posted_total", {"outcome": "created"}, 2),
    ("notiflow_events_matched_total", {"outcome": "created"}, 1),
    ("notiflow_waits_resumed_total", {"reason": "event"}, 1),
    ("notiflow_waits_resumed_total", {"reason": "timeout"}, 1),
]
