"""A fan-out in the live stack (docs/design/recipients.md, "Topics and fan-out"): the workers make one run
per subscriber a chunk at a time, and every pool process serving its queue SIGKILLed mid-way
loses no run and makes none twice (the chunk task is redelivered or resumed by the sweeper; the
cursor and the runs commit together; the runs' keys are derived from the request's)."""

from __future__ import annotations

import os
import signal
from collections import Counter
from pathlib import Path

import pytest

from recipients.models import Fanout, Recipient, Topic, TopicSubscription
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node
from tests.support.stack import Stack, wait_for
from triggers.dispatch import nudges_waiting
from triggers.models import TriggerInstance

pytestmark = pytest.mark.e2e

SUBSCRIBERS = 1500


def audience(size: int) -> tuple[str, list[str]]:
    topic = Topic.objects.create(key=unique("crowd"))
    keys = [f"{topic.key}-{i:05d}" for i in range(size)]
    Recipient.objects.bulk_create([Recipient(key=key) for key in keys])
    TopicSubscription.objects.bulk_create(
        [TopicSubscription(topic=topic, recipient_id=key) for key in keys]
    )
    return topic.key, keys


def pool_processes(stack: Stack, names: tuple[str, ...]) -> list[int]:
    """The pool processes (children) of the stack's workers called `names`."""
    pids = []
    for process in stack.processes:
        if process.name in names and process.popen.poll() is None:
            pid = process.popen.pid
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            pids += [int(child) for child in children]
    return pids


def test_workers_killed_mid_fanout_lose_no_run_and_make_none_twice(api, e2e):
    workflow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=50)))
    topic, keys = audience(SUBSCRIBERS)
    body = {
        "workflow": workflow.key,
        "idempotency_key": unique("news"),
        "topic": topic,
        "cancellation_key": unique("crowd"),  # to leave the shared stack idle afterwards
    }

    answer = api.post("/api/triggers/", body)
    assert answer.status_code == 202, answer.text
    fanout_id = answer.json()["fanout_id"]
    wait_for(
        lambda: Fanout.objects.get(pk=fanout_id).created >= 200,
        timeout=60,
        message="the fan-out under way",
    )
    assert Fanout.objects.get(pk=fanout_id).status == "running"
    victims = pool_processes(e2e, ("default", "billing"))  # both serve `default`
    assert victims
    for pid in victims:
        os.kill(pid, signal.SIGKILL)

    done = wait_for(
        lambda: (f := Fanout.objects.get(pk=fanout_id)).status != "running" and f,
        timeout=120,
        message="the fan-out done",
    )
    assert (done.status, done.created) == ("done", SUBSCRIBERS)
    runs = Counter(
        TriggerInstance.objects.filter(workflow=workflow).values_list("recipient", flat=True)
    )
    assert set(runs) == set(keys) and set(runs.values()) == {1}
    assert api.post("/api/triggers/", body).json()["fanout_id"] == fanout_id  # a replay
    assert TriggerInstance.objects.filter(workflow=workflow).count() == SUBSCRIBERS

    # The runs carry the request's cancellation key: the other tests need not wait behind them.
    cancel = {"cancellation_key": body["cancellation_key"]}
    assert api.post("/api/triggers/cancel/", cancel).status_code == 200
    wait_for(
        lambda: (
            not TriggerInstance.objects.filter(
                workflow=workflow, status__in=["enqueued", "processing"]
            ).exists()
        ),
        timeout=60,
        message="every run finished or cancelled",
    )
    wait_for(lambda: nudges_waiting(["default"]) == 0, timeout=60, message="the queue drained")
