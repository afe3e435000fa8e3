from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db.models.functions import Now
from django.utils import timezone

from recipients.models import Recipient
from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.support.stack import wait_for
from triggers.models import TERMINAL_STATUSES, TriggerEvent, TriggerInstance
from workers.models import StepExecutionLog
from workers.services.engine import step_execute


def node_output(log: StepExecutionLog) -> dict[str, Any] | None:
    """A step log's output as the node produced it: without the decision the engine records
    beside it (workflows.decisions; read by tests/triggers/test_explain.py)."""
    if log.output is None:
        return None
    return {key: value for key, value in log.output.items() if key != "decision"}


def fire(api, workflow, payload, key=None) -> str:
    from tests.conftest import unique

    response = api.post(
        "/api/triggers/",
        {"workflow": workflow.key, "idempotency_key": key or unique("key"), "payload": payload},
    )
    assert response.status_code == 201, response.text
    return response.json()["id"]


def wait_terminal(trigger_id: str, timeout: float = 30) -> TriggerInstance:
    def terminal():
        trigger = TriggerInstance.objects.get(pk=trigger_id)
        return trigger if trigger.status in TERMINAL_STATUSES else None

    try:
        return wait_for(
            terminal, timeout=timeout, interval=0.05, message=f"trigger {trigger_id} terminal"
        )
    except AssertionError as timed_out:  # say where the run stood, so a failure explains itself
        raise AssertionError(f"{timed_out}; {run_whereabouts(trigger_id)}") from None


def run_whereabouts(trigger_id: str) -> str:
    """Where a run stands, for a test's failure message: its row's scheduling fields (against
    the database's clock), its status changes and its step logs."""
    run = TriggerInstance.objects.annotate(now=Now()).get(pk=trigger_id)
    now = run.now

    def ago(moment):
        return "-" if moment is None else f"{(now - moment).total_seconds():+.2f} s ago"

    events = [
        f"{e.from_status or '-'}>{e.to_status} {ago(e.created_at)} ({e.reason})"
        for e in TriggerEvent.objects.filter(trigger_id=trigger_id).order_by("created_at", "pk")
    ]
    steps = [
        f"{s.node_id}#{s.attempt} {'ok' if s.success else s.error} {ago(s.finished_at)}"
        for s in StepExecutionLog.objects.filter(trigger_id=trigger_id).order_by("started_at")
    ]
    return (
        f"status {run.status}, node {run.current_node_id}, attempts {run.attempts}, "
        f"available {ago(run.available_at)}, nudged {ago(run.nudged_at)}, "
        f"lease until {ago(run.lease_until)} by {run.leased_by or '-'}; "
        f"events {events}; steps {steps}"
    )


def due_trigger(definition=None, payload=None, **fields) -> TriggerInstance:
    """A run due now. One naming a recipient finds them (created when missing), as intake's
    runs do: a step skips a send whose recipient is gone (erased)."""
    if fields.get("recipient"):
        Recipient.objects.get_or_create(key=fields["recipient"])
    workflow = WorkflowFactory(definition=definition or chain(email_node("mail"), sms_node("text")))
    version = workflow.current_version
    return TriggerInstance.objects.create(
        workflow=workflow,
        workflow_version=version,
        idempotency_key="k",
        payload=payload or {"email": "a@example.com", "name": "Al", "phone": "+15550199"},
        status="enqueued",
        current_node_id=version.definition["entry_node_id"],
        available_at=timezone.now() - timedelta(seconds=1),
        **fields,
    )


def run_to_the_end(definition: dict[str, Any], payload: dict[str, Any]) -> TriggerInstance:
    """Step the engine in-process until the run is terminal. Each next step is made due at
    once: the claim compares with the database's now(), which inside a test's transaction
    stands still at its start."""
    trigger = due_trigger(definition, payload=payload)
    for _ in range(len(definition["nodes"]) + 1):
        step_execute(trigger_id=str(trigger.pk), worker_id="w")
        trigger.refresh_from_db()
        if trigger.status in TERMINAL_STATUSES:
            return trigger
        earlier = timezone.now() - timedelta(hours=1)
        TriggerInstance.objects.filter(pk=trigger.pk).update(available_at=earlier)
    raise AssertionError(f"run did not end: {trigger.status} at {trigger.current_node_id}")


def idle_trigger(**fields) -> TriggerInstance:
    """An enqueued trigger due tomorrow: committed, it is not taken by the sweeper and workers of
    an end-to-end stack running on the same test database."""
    trigger = due_trigger(**fields)
    TriggerInstance.objects.filter(pk=trigger.pk).update(
        available_at=timezone.now() + timedelta(days=1)
    )
    return trigger


def logged_failure(trigger: TriggerInstance, attempt: int, node_id: str = "mail") -> None:
    now = timezone.now()
    StepExecutionLog.objects.create(
        trigger=trigger,
        workflow_id=trigger.workflow_id,
        node_id=node_id,
        node_type="email",
        attempt=attempt,
        started_at=now,
        finished_at=now,
        input={},
        success=False,
        error="SMTP 451",
    )
