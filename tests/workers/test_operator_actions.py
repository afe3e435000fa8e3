"""Every operator action end to end (docs/design/rules.md, rule 13): after a retry or a requeue, from
the admin's button, its bulk action or manage.py, a real worker runs the trigger and it ends where
it should, with one step log per attempt and a send ledger that counts only real provider calls.
Cancellation's paths are in test_cancellation.py."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from tests.conftest import sms_outbox, unique
from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.workers.helpers import fire, wait_terminal
from triggers.models import TriggerInstance, TriggerStatus
from workers.models import SendLedger, StepExecutionLog
from workflows.models import Workflow

pytestmark = pytest.mark.e2e

LIST = "/admin/triggers/triggerinstance/"


def two_steps() -> Workflow:
    return WorkflowFactory.create(definition=chain(email_node("mail"), sms_node("text")))


def attempts_logged(trigger_id: str) -> list[tuple[str, int, bool]]:
    steps = StepExecutionLog.objects.filter(trigger_id=trigger_id).order_by("started_at")
    return [(s.node_id, s.attempt, s.success) for s in steps]


def message_id(trigger_id: str, node_id: str = "mail") -> str:
    return f"<{trigger_id}.{node_id}@notiflow.local>"


def failed_run(api, workflow, address: str) -> str:
    trigger_id = fire(api, workflow, {"email": address, "name": "Ri", "phone": "+15550140"})
    trigger = wait_terminal(trigger_id)
    assert trigger.status == TriggerStatus.FAILED and "550" in trigger.last_error
    return trigger_id


# The three ways an operator retries a failed run.
def retry_button(operator: Client, workflow, trigger_ids: list[str]) -> None:
    for trigger_id in trigger_ids:
        assert operator.post(f"{LIST}{trigger_id}/retry/").status_code == 302


def retry_action(operator: Client, workflow, trigger_ids: list[str]) -> None:
    response = operator.post(LIST, {"action": "retry_selected", "_selected_action": trigger_ids})
    assert response.status_code == 302


def retry_command(operator: Client, workflow, trigger_ids: list[str]) -> None:
    call_command("retry_failed", "--workflow", workflow.key, stdout=StringIO(), stderr=StringIO())


RETRIES: list[Callable[..., None]] = [retry_button, retry_action, retry_command]


@pytest.mark.parametrize("retry", RETRIES, ids=lambda f: f.__name__)
def test_retried_run_sends_again_once_and_completes(api, e2e, smtp_server, operator, retry):
    workflow = two_steps()
    addresses = [f"reject1-{unique()}@example.com" for _ in range(2)]
    trigger_ids = [failed_run(api, workflow, address) for address in addresses]

    retry(operator, workflow, trigger_ids)

    for trigger_id, address in zip(trigger_ids, addresses, strict=True):
        trigger = wait_terminal(trigger_id)
        assert trigger.status == TriggerStatus.COMPLETED, trigger.last_error
        assert trigger.last_error == "" and trigger.attempts == 0
        # The retried node's log goes on after its last attempt: never a duplicate number.
        assert attempts_logged(trigger_id) == [
            ("mail", 1, False),
            ("mail", 2, True),
            ("text", 1, True),
        ]
        ledger = SendLedger.objects.get(trigger_id=trigger_id, node_id="mail")
        provider_calls = smtp_server.handler.deliveries[message_id(trigger_id)]
        assert (ledger.status, ledger.send_count, provider_calls) == ("sent", 2, 2)
        assert len(smtp_server.handler.to(address)) == 1
        assert [m for m in sms_outbox(e2e) if m["idempotency_key"] == f"{trigger_id}:text"]
        reasons = list(trigger.events.values_list("reason", flat=True))
        assert "retry requested" in reasons


def test_retried_run_that_fails_again_ends_failed_counting_each_real_send(
    api, e2e, smtp_server, operator
):
    workflow = two_steps()
    trigger_id = failed_run(api, workflow, f"reject-{unique()}@example.com")

    retry_command(operator, workflow, [trigger_id])

    trigger = wait_terminal(trigger_id)
    assert trigger.status == TriggerStatus.FAILED and "550" in trigger.last_error
    assert attempts_logged(trigger_id) == [("mail", 1, False), ("mail", 2, False)]
    ledger = SendLedger.objects.get(trigger_id=trigger_id, node_id="mail")
    assert ledger.send_count == smtp_server.handler.deliveries[message_id(trigger_id)] == 2


def test_retried_render_failure_fails_again_without_calling_the_provider(
    api, e2e, smtp_server, operator
):
    workflow = WorkflowFactory(definition=chain(email_node("mail", subject="{{ payload.nope }}")))
    trigger_id = fire(api, workflow, {"email": f"ok-{unique()}@example.com", "name": "Re"})
    assert wait_terminal(trigger_id).status == TriggerStatus.FAILED

    retry_button(operator, workflow, [trigger_id])

    trigger = wait_terminal(trigger_id)
    assert trigger.status == TriggerStatus.FAILED and "nope" in trigger.last_error
    assert attempts_logged(trigger_id) == [("mail", 1, False), ("mail", 2, False)]
    ledger = SendLedger.objects.get(trigger_id=trigger_id, node_id="mail")
    assert (ledger.status, ledger.send_count) == ("sending", 0)
    assert smtp_server.handler.deliveries[message_id(trigger_id)] == 0


def abandoned(workflow, payload: dict) -> TriggerInstance:
    """A run whose worker died holding the lease, and the sweeper's nudge for it lost: the
    lease expired and `nudged_at` is recent, so the sweeper leaves it alone for
    NOTIFLOW_RENUDGE_AFTER_SECONDS (10 s on the test stack) and the operator's requeue is what
    moves it. Written directly: no process can be made to die at exactly this point."""
    version = workflow.current_version
    now = timezone.now()
    return TriggerInstance.objects.create(
        workflow=workflow,
        workflow_version=version,
        idempotency_key=unique("key"),
        payload=payload,
        status=TriggerStatus.PROCESSING,
        current_node_id=version.definition["entry_node_id"],
        available_at=now - timedelta(minutes=1),
        lease_until=now - timedelta(seconds=1),
        leased_by="dead-host:1/abc",
        nudged_at=now,
    )


def requeue_button(operator: Client, trigger_ids: list[str]) -> None:
    for trigger_id in trigger_ids:
        assert operator.post(f"{LIST}{trigger_id}/requeue/").status_code == 302


def requeue_action(operator: Client, trigger_ids: list[str]) -> None:
    response = operator.post(LIST, {"action": "requeue_selected", "_selected_action": trigger_ids})
    assert response.status_code == 302


def requeue_command(operator: Client, trigger_ids: list[str]) -> None:
    call_command("requeue_stuck", stdout=StringIO(), stderr=StringIO())


@pytest.mark.parametrize(
    "requeue", [requeue_button, requeue_action, requeue_command], ids=lambda f: f.__name__
)
def test_requeued_run_is_picked_up_and_completes(api, e2e, smtp_server, operator, requeue):
    workflow = two_steps()
    address = f"ok-{unique()}@example.com"
    trigger = abandoned(workflow, {"email": address, "name": "Rq", "phone": "+15550141"})

    requeue(operator, [str(trigger.pk)])

    done = wait_terminal(str(trigger.pk))
    assert done.status == TriggerStatus.COMPLETED, done.last_error
    assert attempts_logged(str(trigger.pk)) == [("mail", 1, True), ("text", 1, True)]
    assert len(smtp_server.handler.to(address)) == 1
    assert SendLedger.objects.get(trigger=trigger, node_id="mail").send_count == 1
    (requeued,) = done.events.filter(reason__startswith="requeued")
    assert "dead-host:1/abc" in requeued.reason and requeued.to_status == "enqueued"
