"""Several steps of one run in one task (NOTIFLOW_STEPS_PER_TASK, docs/design/run.md): a worker of the
test's own runs each next node due at once in the task it is in, still claiming and recording
every step on its own; a wait (a delay's countdown) still goes through the broker."""

from __future__ import annotations

import re

import pytest

from tests.conftest import sms_outbox, unique
from tests.factories import WorkflowFactory, chain, delay_node, email_node, sms_node
from tests.workers.helpers import fire, wait_terminal
from tests.workers.test_providers_e2e import own_workers
from workers.models import StepExecutionLog

pytestmark = pytest.mark.e2e

_DONE = re.compile(r"Task workers\.execute_node\[[^\]]+\] succeeded")


@pytest.fixture
def continuing_queue(e2e, api):
    queue = unique("steps")
    processes = own_workers(e2e, api, queue, 1, NOTIFLOW_STEPS_PER_TASK="5")
    yield queue, processes[0]
    for process in processes:
        process.stop()


def test_a_run_due_at_once_takes_one_task_and_a_delay_goes_through_the_broker(
    api, e2e, smtp_server, continuing_queue
):
    queue, worker = continuing_queue
    straight = WorkflowFactory(
        key=f"{queue}.straight",
        definition=chain(email_node("a"), sms_node("b"), email_node("c", subject="Again")),
    )
    waiting = WorkflowFactory(
        key=f"{queue}.waiting",
        definition=chain(email_node("a"), delay_node("pause", delay_ms=200), sms_node("b")),
    )
    payload = {"email": f"{unique('s')}@example.com", "name": "S", "phone": "+15550177"}
    ids = [fire(api, straight, payload) for _ in range(3)]
    delayed = fire(api, waiting, payload)

    for trigger_id in [*ids, delayed]:
        assert wait_terminal(trigger_id).status == "completed"
    for trigger_id in ids:
        steps = StepExecutionLog.objects.filter(trigger_id=trigger_id)
        assert sorted((s.node_id, s.attempt, s.success) for s in steps) == [
            ("a", 1, True),
            ("b", 1, True),
            ("c", 1, True),
        ]
    texts = [m for m in sms_outbox(e2e) if m["idempotency_key"].split(":")[0] in ids]
    assert len(texts) == 3
    # Three straight runs in three tasks; the delayed run in two (its countdown nudge). The
    # other tasks the worker ran (none here) would only add to the count.
    assert len(_DONE.findall(worker.log())) == 3 + 2
