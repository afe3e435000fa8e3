"""The registry with real workers (the stack's, and some of a test's own): workers register with
their queues and what they can run, intake accepts a trigger only while a live worker serves its
workflow's queue, a warm shutdown marks a worker stopped, and a worker without an SMS provider
fails an SMS node at once."""

from __future__ import annotations

import socket
from importlib import metadata
from typing import Any
from unittest import mock

import pytest
from celery import current_app

from tests.conftest import STACK_WORKERS, sms_outbox, unique
from tests.factories import WorkflowFactory, chain, delay_node, sms_node
from tests.support.stack import Process, Stack, wait_for
from tests.workers.helpers import wait_terminal
from triggers.models import TriggerInstance
from triggers.services import trigger_create

pytestmark = pytest.mark.e2e

HOST = socket.gethostname()


def workers_by_name(api: Any) -> dict[str, dict[str, Any]]:
    response = api.get("/api/workers/")
    assert response.status_code == 200, response.text
    return {worker["name"]: worker for worker in response.json()["results"]}


def live_worker(api: Any, name: str) -> dict[str, Any]:
    return wait_for(
        lambda: (w := workers_by_name(api).get(name)) and w["live"] and w,
        timeout=60,
        interval=0.2,
        message=f"{name} to register",
    )


def start_worker(stack: Stack, queue: str, **env: str) -> tuple[Process, str]:
    """A worker of the test's own on `queue`, named after it; once it is live."""
    process = stack.worker(queue, concurrency=1, queues=[queue], extra_env=env)
    return process, f"{queue}@{HOST}"


def fire(api: Any, workflow_key: str) -> Any:
    body = {"workflow": workflow_key, "idempotency_key": unique("key"), "payload": {}}
    return api.post("/api/triggers/", body)


def test_the_stacks_two_worker_groups_are_listed_live_with_their_queues(api):
    workers = workers_by_name(api)
    for group, queues in STACK_WORKERS.items():
        worker = workers[f"{group}@{HOST}"]
        assert worker["live"] is True and worker["stopped_at"] is None
        assert worker["queues"] == sorted(queues)
        assert worker["concurrency"] == 2 and worker["host"] == HOST and worker["pid"] > 0
        # The chat channels' provider is the service itself, which every worker has; in-app
        # needs none; the push channels are not configured on the stack's workers.
        assert worker["node_types"] == [
            "delay",
            "digest",
            "email",
            "fetch",
            "inapp",
            "slack",
            "sms",
            "teams",
            "throttle",
            "wait_event",
            "window",
        ]
        assert worker["providers"] == {
            "email": "smtp",
            "sms": "file",
            "slack": "slack",
            "teams": "teams",
        }
        assert worker["version"] == metadata.version("notiflow")
    health = api.get("/api/health/").json()["workers"]
    assert health["queues"]["default"] >= 2 and health["queues"]["billing"] >= 1

    # The stack's billing worker serves workflows whose keys start with `billing.`.
    billing = WorkflowFactory(key=f"billing.{unique('invoice')}.v1", definition=chain(delay_node()))
    assert billing.queue == "billing"
    assert fire(api, billing.key).status_code == 201


def test_a_queue_is_served_only_while_its_worker_is_live_and_a_warm_shutdown_stops_it(e2e, api):
    queue = unique("bill")
    workflow = WorkflowFactory(key=f"{queue}.invoice_due.v1", definition=chain(delay_node()))

    refused = fire(api, workflow.key)
    assert refused.status_code == 503
    assert refused.json()["detail"] == (
        f"no live worker serves queue '{queue}'; start one with: "
        f"celery -A notiflow worker -Q {queue} -n {queue}@%h"
    )
    assert not TriggerInstance.objects.filter(workflow=workflow).exists()

    process, name = start_worker(e2e, queue)  # what that command starts, `%h` this host
    assert name == f"{queue}@{HOST}"
    try:
        worker = live_worker(api, name)
        assert worker["queues"] == [queue]
        assert fire(api, workflow.key).status_code == 201
    finally:
        # SIGTERM: a warm shutdown. 60 s: run after other end-to-end tests on a loaded machine it
        # twice overran 30 s with the pool still joining its children (cause not found; alone it
        # stops in seconds).
        process.stop(timeout=60)
    assert process.popen.returncode == 0, process.log()[-3000:]

    stopped = workers_by_name(api)[name]
    assert stopped["live"] is False and stopped["stopped_at"] is not None
    assert f"registry: {name} marked stopped" in process.log()
    assert fire(api, workflow.key).status_code == 503
    assert TriggerInstance.objects.filter(workflow=workflow).count() == 1


def test_a_worker_without_an_sms_provider_fails_an_sms_node_at_once(e2e, api):
    queue = unique("nosms")
    process, name = start_worker(e2e, queue, NOTIFLOW_SMS_BACKEND="none")
    try:
        worker = live_worker(api, name)
        assert worker["node_types"] == [
            "delay",
            "digest",
            "email",
            "fetch",
            "inapp",
            "slack",
            "teams",
            "throttle",
            "wait_event",
            "window",
        ]
        assert set(worker["providers"]) == {"email", "slack", "teams"}

        workflow = WorkflowFactory(key=f"{queue}.text", definition=chain(sms_node("text")))
        # The nudge goes to this worker's queue only (the stack's workers have an SMS provider).
        with mock.patch("triggers.dispatch.triggers_publish"):
            trigger, _ = trigger_create(
                workflow_key=workflow.key,
                idempotency_key=unique("key"),
                payload={"phone": "+15550100", "name": "Kim"},
            )
        current_app.send_task("workers.execute_node", args=[str(trigger.pk)], queue=queue)

        failed = wait_terminal(str(trigger.pk), timeout=30)
    finally:
        process.stop()
    assert failed.status == "failed" and failed.attempts == 1
    assert failed.last_error == (
        "no_handler_registered: node 'text' is an sms node and this worker has no SMS provider"
    )
    assert [e.to_status for e in failed.events.order_by("id")] == [
        "enqueued",
        "processing",
        "failed",
    ]
    assert not [m for m in sms_outbox(e2e) if m["idempotency_key"] == f"{trigger.pk}:text"]
