"""A fan-out's chunks under a backlog, in a real worker (docs/design/recipients.md, "Chunks before
runs"): a chunk task goes ahead of every run's nudge, so consecutive chunks are one step apart,
not a backlog apart (at the fan-out's own priority they waited behind the whole line, its own
chunk's runs included: 3-8 minutes between chunks under a bench's backlog); the audience's runs
keep the fan-out's priority, so an urgent trigger sent meanwhile overtakes them."""

from __future__ import annotations

import itertools
from datetime import datetime

import pytest
from django.test import override_settings

from recipients.models import Fanout, Recipient, Topic, TopicSubscription
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node
from tests.support.stack import wait_for
from triggers.fanout import FanoutRequest, fanout_start
from triggers.models import TriggerInstance, TriggerStatus
from triggers.services import trigger_create

pytestmark = pytest.mark.e2e

BACKLOG, SUBSCRIBERS, CHUNK, URGENT = 400, 120, 20, 3
PAYLOAD = {"email": "ok-fanout-priority@example.com", "name": "Ann", "phone": "+15550100"}
# Between two chunks: the step a worker process was running when the chunk was published, and
# the chunk itself (a few ms each on a quiet machine); generous for a loaded one. The backlog
# alone takes that one process several seconds.
MAX_GAP_SECONDS = 3.0


def _audience(size: int) -> str:
    topic = Topic.objects.create(key=unique("prio-crowd"))
    keys = [f"{topic.key}-{i:04d}" for i in range(size)]
    Recipient.objects.bulk_create([Recipient(key=key) for key in keys])
    TopicSubscription.objects.bulk_create(
        [TopicSubscription(topic=topic, recipient_id=key) for key in keys]
    )
    return topic.key


def _triggers(workflow, *, count: int, priority: int | None = None) -> list[str]:
    """`count` triggers made here, their nudges published at once (the e2e fixture commits)."""
    return [
        str(
            trigger_create(
                workflow_key=workflow.key,
                idempotency_key=unique("k"),
                payload=PAYLOAD,
                priority=priority,
            )[0].pk
        )
        for _ in range(count)
    ]


def _completed(ids: list[str]) -> dict[str, datetime]:
    rows = TriggerInstance.objects.filter(pk__in=ids, status=TriggerStatus.COMPLETED)
    return {str(pk): done for pk, done in rows.values_list("pk", "completed_at") if done}


def test_a_fanouts_chunks_do_not_wait_behind_a_backlog_and_urgent_triggers_overtake_its_runs(
    e2e, smtp_server
):
    queue = unique("fanprio")
    # One workflow, one queue, one priority (5) for the backlog and the fan-out's runs.
    workflow = WorkflowFactory(key=f"{queue}.mail", definition=chain(email_node("mail")))
    topic = _audience(SUBSCRIBERS)
    # No worker serves the queue yet: everything below waits in it, in this order.
    with override_settings(NOTIFLOW_TRIGGER_REQUIRES_WORKER=False):
        backlog = _triggers(workflow, count=BACKLOG)
        fanout, _ = fanout_start(FanoutRequest(workflow.key, unique("news"), topic, PAYLOAD))
        urgent = _triggers(workflow, count=URGENT, priority=9)

    worker = e2e.worker(
        unique("fanprio-worker"),
        concurrency=1,
        queues=[queue],
        extra_env={"NOTIFLOW_FANOUT_CHUNK_SIZE": str(CHUNK)},
    )
    try:
        done = wait_for(
            lambda: (f := Fanout.objects.get(pk=fanout.pk)).status != "running" and f,
            timeout=120,
            interval=0.1,
            message="the fan-out's chunks made",
        )
        assert (done.status, done.created) == ("done", SUBSCRIBERS)
        # Its runs waited behind the backlog (their priority is its): wait for all of it.
        runs = [
            str(pk)
            for pk in TriggerInstance.objects.filter(
                workflow=workflow, idempotency_key__startswith="fanout:"
            ).values_list("pk", flat=True)
        ]
        wait_for(
            lambda: len(_completed(backlog + runs + urgent)) == BACKLOG + SUBSCRIBERS + URGENT,
            timeout=180,
            interval=0.2,
            message="the backlog, the audience and the urgent triggers completed",
        )
    finally:
        worker.stop()

    # Each chunk's runs were created in one statement: one created_at per chunk.
    chunk_times = sorted(
        set(TriggerInstance.objects.filter(pk__in=runs).values_list("created_at", flat=True))
    )
    assert len(chunk_times) == SUBSCRIBERS // CHUNK
    assert done.created_at < chunk_times[0]
    finished = _completed(backlog + runs + urgent)
    backlog_done = sorted(finished[pk] for pk in backlog)
    # From the worker's first task done (the backlog was in the queue before the fan-out) to the
    # fan-out's first chunk, then from each chunk to the next.
    times = [min(backlog_done[0], chunk_times[0]), *chunk_times]
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(times)]
    before_last_chunk = sum(1 for at in backlog_done if at < chunk_times[-1])
    print(  # shown with -s
        f"gaps between chunks (s): {[round(gap, 3) for gap in gaps]}; backlog completed "
        f"before the last chunk: {before_last_chunk} of {BACKLOG}"
    )
    assert max(gaps) < MAX_GAP_SECONDS, gaps
    # Every chunk was made while most of the backlog still waited (it was in the queue first).
    assert before_last_chunk <= BACKLOG * 0.2, before_last_chunk

    # The urgent triggers, sent after the fan-out, completed before most of its audience.
    audience_done = sorted(finished[pk] for pk in runs)
    ahead = [sum(1 for at in audience_done if at < finished[pk]) for pk in urgent]
    assert max(ahead) <= SUBSCRIBERS * 0.2, ahead
