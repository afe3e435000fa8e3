"""Cancelling a fan-out the stack's workers are making (docs/design/rules.md, rule 13; docs/security/findings.md,
"Fan-outs"): after POST /api/fanouts/<id>/cancel/ with `runs`, the workers make no more runs, the
fan-out is `cancelled`, every run it made is `cancelled`, and so it stays past the sweeper's
resume delay and several sweeps."""

from __future__ import annotations

import time

import pytest

from recipients.models import Fanout
from tests.conftest import STACK_SETTINGS, unique
from tests.factories import WorkflowFactory, chain, delay_node, sms_node
from tests.support.stack import wait_for
from tests.triggers.test_fanout_e2e import audience
from triggers.models import TriggerInstance

pytestmark = pytest.mark.e2e

SUBSCRIBERS = 5000


def test_a_cancelled_fanout_stops_in_the_workers_and_its_runs_end_cancelled(api, e2e):
    # Each run waits an hour before its SMS: none finishes before the cancel.
    workflow = WorkflowFactory(
        definition=chain(delay_node("wait", duration="1h"), sms_node("text"))
    )
    topic, _ = audience(SUBSCRIBERS)
    body = {"workflow": workflow.key, "idempotency_key": unique("news"), "topic": topic}
    answer = api.post("/api/triggers/", body)
    assert answer.status_code == 202, answer.text
    fanout_id = answer.json()["fanout_id"]
    wait_for(
        lambda: Fanout.objects.get(pk=fanout_id).created >= 300,
        timeout=60,
        message="the fan-out under way",
    )

    cancelled = api.post(f"/api/fanouts/{fanout_id}/cancel/", {"runs": True})

    assert cancelled.status_code == 200, cancelled.text
    fanout = Fanout.objects.get(pk=fanout_id)
    assert fanout.status == "cancelled" and 300 <= fanout.created < SUBSCRIBERS
    assert cancelled.json()["runs_cancelled"] == fanout.created
    runs = TriggerInstance.objects.filter(workflow=workflow)
    # Past the time the fan-outs' sweep would send a chunk task again (a lease expired, a task
    # presumed lost) and several of its intervals, nothing more is made and no run is revived.
    interval = float(STACK_SETTINGS["NOTIFLOW_SWEEP_INTERVAL_SECONDS"])
    resume = max(
        float(STACK_SETTINGS[name])
        for name in ("NOTIFLOW_LEASE_SECONDS", "NOTIFLOW_RENUDGE_AFTER_SECONDS")
    )
    deadline = time.monotonic() + resume + 3 * interval
    while time.monotonic() < deadline:
        assert runs.count() == fanout.created
        assert not runs.exclude(status="cancelled").exists()
        assert Fanout.objects.get(pk=fanout_id).status == "cancelled"
        time.sleep(0.2)
