"""Bulk actions in the live stack (docs/bulk-actions.md; docs/design/rules.md rule 13): after a cancel,
a retry or a replay asked over the API, the stack's workers carry the action out chunk by chunk
and then run (or stop) each run, which ends where it should; and with every pool process serving
the chunks' queue SIGKILLed mid-action, no run is acted on twice and none is missed."""

from __future__ import annotations

import os
import signal
from collections import Counter
from typing import Any

import pytest

from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node, email_node
from tests.support.stack import wait_for
from tests.triggers.test_fanout_e2e import pool_processes
from tests.workers.helpers import fire, wait_terminal
from tests.workers.test_operator_actions import failed_run, message_id, two_steps
from triggers.actions import replay_key
from triggers.models import TriggerAction, TriggerEvent, TriggerInstance, TriggerStatus
from triggers.services import TriggerRequest, triggers_create

pytestmark = pytest.mark.e2e

ACTIONS = "/api/triggers/actions/"


def act(api: Any, action: str, run_filter: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """Ask for the action and wait until the workers have carried it out; the action as shown."""
    response = api.post(ACTIONS, {"action": action, "filter": run_filter, **extra})
    assert response.status_code == 202, response.text
    action_id = response.json()["action_id"]
    return wait_for(
        lambda: (
            (shown := api.get(f"/api/trigger-actions/{action_id}/").json())["status"] != "running"
            and shown
        ),
        timeout=90,
        message=f"bulk action {action_id} done",
    )


def test_a_bulk_retry_runs_failed_runs_again_to_completion(api, e2e, smtp_server):
    workflow = two_steps()
    addresses = [f"reject1-{unique()}@example.com" for _ in range(3)]
    trigger_ids = [failed_run(api, workflow, address) for address in addresses]

    action = act(api, "retry", {"workflow": workflow.key, "error_contains": "550"})

    assert (action["status"], action["matched"], action["done"]) == ("done", 3, 3)
    for trigger_id, address in zip(trigger_ids, addresses, strict=True):
        trigger = wait_terminal(trigger_id)
        assert trigger.status == TriggerStatus.COMPLETED, trigger.last_error
        assert len(smtp_server.handler.to(address)) == 1
        assert smtp_server.handler.deliveries[message_id(trigger_id)] == 2
        reasons = list(trigger.events.values_list("reason", flat=True))
        assert f"bulk action {action['action_id']} (retry)" in reasons


def test_a_bulk_cancel_stops_runs_before_their_next_node(api, e2e, smtp_server):
    workflow = WorkflowFactory(
        definition=chain(delay_node("wait", duration="3s"), email_node("mail"))
    )
    addresses = [f"ok-{unique()}@example.com" for _ in range(3)]
    trigger_ids = [fire(api, workflow, {"email": a, "name": "Cy"}) for a in addresses]
    other = fire(api, workflow, {"email": f"ok-{unique()}@example.com", "name": "Di"})

    action = act(api, "cancel", {"ids": trigger_ids})

    assert (action["matched"], action["done"], action["skipped"]) == (3, 3, 0)
    assert wait_terminal(other, timeout=30).status == TriggerStatus.COMPLETED  # past the delay
    for trigger_id, address in zip(trigger_ids, addresses, strict=True):
        trigger = TriggerInstance.objects.get(pk=trigger_id)
        assert trigger.status == TriggerStatus.CANCELLED
        assert not trigger.steps.filter(node_id="mail").exists()  # type: ignore[attr-defined]
        assert smtp_server.handler.to(address) == []


def test_a_bulk_replay_runs_each_run_again_as_a_new_run(api, e2e, smtp_server):
    workflow = WorkflowFactory(definition=chain(email_node("mail")))
    addresses = [f"ok-{unique()}@example.com" for _ in range(2)]
    originals = [fire(api, workflow, {"email": a, "name": "Ed"}) for a in addresses]
    for trigger_id in originals:
        assert wait_terminal(trigger_id).status == TriggerStatus.COMPLETED
    key = unique("replay")

    action = act(api, "replay", {"workflow": workflow.key}, idempotency_key=key)
    again = api.post(
        ACTIONS, {"action": "replay", "filter": {"workflow": workflow.key}, "idempotency_key": key}
    )

    assert (action["matched"], action["done"]) == (2, 2)
    assert (again.status_code, again.json()["action_id"]) == (202, action["action_id"])
    for trigger_id, address in zip(originals, addresses, strict=True):
        replay = TriggerInstance.objects.get(
            idempotency_key=replay_key(action["action_id"], trigger_id)
        )
        assert wait_terminal(str(replay.pk)).status == TriggerStatus.COMPLETED
        assert len(smtp_server.handler.to(address)) == 2  # the original's and the replay's
    assert TriggerInstance.objects.filter(workflow=workflow).count() == 4


RUNS = 400


def test_workers_killed_mid_action_act_on_no_run_twice_and_miss_none(api, e2e):
    """Replays of RUNS runs, NOTIFLOW_ACTION_CHUNK_SIZE (50 on the stack) a chunk, with every
    pool process serving `default` (both workers) SIGKILLed once the action is under way; then a
    bulk cancel of them all, which also leaves the shared stack idle."""
    # Each run waits an hour before its email (a delay at the end would end it at once).
    workflow = WorkflowFactory(
        definition=chain(delay_node("later", duration="1h"), email_node("mail"))
    )
    outcomes = triggers_create(
        [TriggerRequest(workflow.key, unique("run"), {"n": n}) for n in range(RUNS)],
        actor="test",
    )
    originals = {str(outcome[0].pk) for outcome in outcomes}  # type: ignore[index]
    response = api.post(ACTIONS, {"action": "replay", "filter": {"workflow": workflow.key}})
    assert response.status_code == 202, response.text
    action_id = response.json()["action_id"]
    wait_for(
        lambda: TriggerAction.objects.get(pk=action_id).cursor >= 50,
        timeout=60,
        interval=0.01,
        message="the action under way",
    )
    assert TriggerAction.objects.get(pk=action_id).status == "running"
    victims = pool_processes(e2e, ("default", "billing"))
    assert victims
    for pid in victims:
        os.kill(pid, signal.SIGKILL)

    done = wait_for(
        lambda: (a := TriggerAction.objects.get(pk=action_id)).status != "running" and a,
        timeout=120,
        message="the action done after the kill",
    )
    assert (done.status, done.matched, done.done, done.skipped, done.errors) == (
        "done",
        RUNS,
        RUNS,
        0,
        0,
    )
    replays = TriggerInstance.objects.filter(workflow=workflow).exclude(pk__in=originals)
    keys = Counter(replays.values_list("idempotency_key", flat=True))
    assert set(keys) == {replay_key(action_id, run) for run in originals}
    assert set(keys.values()) == {1}
    created = TriggerEvent.objects.filter(trigger__in=replays, to_status="enqueued", from_status="")
    assert created.count() == RUNS

    cancel = act(api, "cancel", {"workflow": workflow.key})
    assert (cancel["matched"], cancel["done"] + cancel["skipped"]) == (2 * RUNS, 2 * RUNS)
    cancelled = TriggerEvent.objects.filter(trigger__workflow=workflow, to_status="cancelled")
    per_run = Counter(cancelled.values_list("trigger_id", flat=True))
    assert len(per_run) == cancel["done"] and set(per_run.values()) == {1}
    assert not TriggerInstance.objects.filter(
        workflow=workflow, status__in=["enqueued", "processing"]
    ).exists()
