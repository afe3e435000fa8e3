"""Queues and priority end to end (docs/design/rules.md, rule 11): every nudge of a run goes to its
workflow's queue, where only the workers started with `-Q <queue>` take it, and a worker takes
the most urgent nudge waiting first."""

from __future__ import annotations

from django.test import override_settings

from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node, email_node
from tests.support.stack import wait_for
from tests.workers.helpers import wait_terminal
from triggers.models import TriggerInstance, TriggerStatus
from triggers.services import trigger_create
from workers.models import StepExecutionLog

PAYLOAD = {"email": "ok-queues@example.com", "name": "Ann", "phone": "+15550100"}

BACKLOG, URGENT = 300, 5


def _create(workflow, *, count: int, priority: int | None = None) -> list[str]:
    """`count` triggers made in this process: no worker serves the queue yet, so the intake
    check is off; their nudges are published at once (the e2e fixture autocommits)."""
    with override_settings(NOTIFLOW_TRIGGER_REQUIRES_WORKER=False):
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


def test_urgent_triggers_overtake_a_backlog_on_one_worker_process(e2e, smtp_server):
    queue = unique("prio")
    workflow = WorkflowFactory(
        key=f"{queue}.mail", definition=chain(email_node("mail")), priority=0
    )
    assert workflow.queue == queue  # the dotted key's first segment
    backlog = _create(workflow, count=BACKLOG)
    urgent = _create(workflow, count=URGENT, priority=9)
    assert {t.priority for t in TriggerInstance.objects.filter(pk__in=backlog)} == {0}

    worker = e2e.worker(unique("prio-worker"), concurrency=1, queues=[queue])
    try:
        wait_for(
            lambda: (
                TriggerInstance.objects.filter(
                    pk__in=backlog + urgent, status=TriggerStatus.COMPLETED
                ).count()
                == BACKLOG + URGENT
            ),
            timeout=120,
            interval=0.2,
            message="the backlog and the urgent triggers completed",
        )
    finally:
        worker.stop()

    finished = {
        trigger.pk: trigger.completed_at
        for trigger in TriggerInstance.objects.filter(pk__in=backlog + urgent)
        if trigger.completed_at is not None  # all are: they completed
    }
    backlog_done = sorted(finished[t] for t in map(_uuid, backlog))
    ahead = [
        sum(1 for done in backlog_done if done < finished[trigger_id])
        for trigger_id in map(_uuid, urgent)
    ]
    print(f"backlog triggers completed before each urgent one: {ahead}")  # shown with -s
    # The bar: each urgent trigger completes before at least 80% of the backlog.
    assert max(ahead) <= BACKLOG * 0.2, ahead


def _uuid(trigger_id: str):
    return TriggerInstance._meta.pk.to_python(trigger_id)


def test_a_queue_no_worker_serves_waits_and_its_worker_runs_it(e2e, smtp_server):
    """The stack's workers serve other queues: they never take this workflow's nudges, however
    long a run on their own queue takes; a worker started with -Q <queue> runs it."""
    queue = unique("routed")
    # The delay's nudge comes from the worker's release (with a countdown): routed too.
    definition = chain(email_node("mail"), delay_node("pause", duration="1s"), email_node("again"))
    routed_workflow = WorkflowFactory(key=f"{queue}.mail", definition=definition)
    (routed,) = _create(routed_workflow, count=1)
    default_workflow = WorkflowFactory(definition=definition)
    (sibling,) = _create(default_workflow, count=1)
    # The sibling's two steps and its delay went through the sweeper and the default workers:
    # time enough for a misrouted nudge of `routed` to have been taken too.
    assert wait_terminal(sibling).status == TriggerStatus.COMPLETED
    assert TriggerInstance.objects.get(pk=routed).status == TriggerStatus.ENQUEUED
    assert not StepExecutionLog.objects.filter(trigger_id=routed).exists()

    worker = e2e.worker(unique("routed-worker"), concurrency=1, queues=[queue])
    try:
        done = wait_terminal(routed)
    finally:
        worker.stop()
    assert done.status == TriggerStatus.COMPLETED
    nodes = list(
        StepExecutionLog.objects.filter(trigger_id=routed)
        .order_by("started_at")
        .values_list("node_id", flat=True)
    )
    assert nodes == ["mail", "pause", "again"]
