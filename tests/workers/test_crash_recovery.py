"""A worker killed mid-step: its lease expires, the sweeper re-nudges, another worker finishes."""

from __future__ import annotations

import os
import signal

import pytest

from tests.conftest import STACK_WORKERS, sms_outbox, unique
from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.support.stack import wait_for
from tests.workers.helpers import fire, wait_terminal
from triggers.models import TriggerInstance
from workers.models import SendLedger, StepExecutionLog

pytestmark = pytest.mark.e2e


def send_in_flight(trigger_id: str, smtp_server, node_id: str = "mail") -> TriggerInstance | None:
    """The trigger while the SMTP server holds its message (ledger `sending`, lease held)."""
    message_id = f"<{trigger_id}.{node_id}@notiflow.local>"
    if smtp_server.handler.deliveries[message_id] < 1:
        return None
    trigger = TriggerInstance.objects.get(pk=trigger_id)
    sending = SendLedger.objects.filter(trigger_id=trigger_id, status="sending").exists()
    return trigger if trigger.status == "processing" and sending else None


def worker_pid(trigger: TriggerInstance) -> int:
    # leased_by is "<host>:<pid>/<claim token>", the pid of the pool process running the step.
    return int(trigger.leased_by.split("/")[0].rsplit(":", 1)[1])


def test_worker_killed_mid_send_is_finished_by_another_after_lease_expiry(api, e2e, smtp_server):
    # hang-*: the SMTP server stalls the first delivery of each Message-ID, so the kill lands
    # while the provider call is in flight, the worst moment.
    address = f"hang-{unique()}@example.com"
    workflow = WorkflowFactory(definition=chain(email_node("mail", to=address), sms_node("text")))
    trigger_id = fire(api, workflow, {"name": "Kim", "phone": "+15550111"})

    victim = worker_pid(wait_for(lambda: send_in_flight(trigger_id, smtp_server), timeout=15))
    os.kill(victim, signal.SIGKILL)

    trigger = wait_terminal(trigger_id, timeout=40)
    assert trigger.status == "completed", trigger.last_error
    ledger = SendLedger.objects.get(trigger_id=trigger_id, node_id="mail")
    assert ledger.status == "sent" and ledger.send_count == 2  # the re-send after the crash
    (mail,) = smtp_server.handler.to(address)  # the stalled delivery was never accepted
    assert mail.message_id == f"<{trigger_id}.mail@notiflow.local>"
    steps = StepExecutionLog.objects.filter(trigger_id=trigger_id)
    assert sorted(steps.values_list("node_id", flat=True)) == ["mail", "text"]
    assert trigger.events.filter(reason="lease expired; reclaimed").count() == 1
    assert worker_pid_of_reclaim(trigger) != victim
    assert len([m for m in sms_outbox(e2e) if m["idempotency_key"] == f"{trigger_id}:text"]) == 1
    for process in e2e.processes:  # the pool replaced its child; no process died for good
        if process.name in ("web", *STACK_WORKERS, "beat"):  # other tests add (and stop) their own
            assert process.popen.poll() is None, f"{process.name} exited"


def worker_pid_of_reclaim(trigger: TriggerInstance) -> int:
    event = trigger.events.get(reason="lease expired; reclaimed")
    return int(event.actor.split("/")[0].rsplit(":", 1)[1])
