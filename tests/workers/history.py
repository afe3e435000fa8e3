"""Triggers with a real audit history (events, step log, send ledger), made through the engine's
own state machine and ledger rather than by writing rows by hand."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timedelta

from django.utils import timezone

from tests.factories import WorkflowFactory, chain, sms_node
from triggers.models import TriggerInstance
from triggers.services import trigger_create
from triggers.steps import Release, StepRecord, trigger_claim_with, trigger_release_with
from workers.services.ledger import ledger_sent
from workflows.semantics import sending_types


def trigger_with_history(
    *,
    status: str = "completed",
    workflow=None,
    created_at: datetime | None = None,
    before_step: Callable[[TriggerInstance], object] | None = None,
) -> TriggerInstance:
    """A trigger whose first node ran and sent: enqueued (status "enqueued", untouched),
    claimed ("processing", ledger `sending`), or released as "completed"/"failed" with a step
    log and a `sent` ledger row. `created_at`: its creation, before its step (which the step
    log's partition follows); `before_step(trigger)`: called once it is created, before it is
    claimed."""
    workflow = workflow or WorkflowFactory(definition=chain(sms_node("text")))
    trigger, _ = trigger_create(
        workflow_key=workflow.key,
        idempotency_key=f"k-{uuid.uuid4().hex}",
        payload={"phone": "+15550199"},
    )
    if created_at is not None:
        TriggerInstance.objects.filter(pk=trigger.pk).update(created_at=created_at)
    if before_step is not None:
        before_step(trigger)
    if status == "enqueued":
        return trigger
    token = f"tests/{uuid.uuid4().hex[:8]}"
    claim = trigger_claim_with(
        trigger_id=trigger.pk, worker_id=token, lease_seconds=60, channels=tuple(sending_types())
    )
    assert claim is not None
    claimed = claim.trigger
    if status == "processing":
        return claimed
    now = timezone.now()
    step_log = {
        "node_type": "sms",
        "started_at": now.isoformat(),
        "input": {},
        "output": {"message_id": "m"},
        "error": "" if status == "completed" else "boom",
    }
    released = trigger_release_with(
        trigger=claimed,
        lease_token=token,
        release=Release(
            status=status,
            current_node_id=None,
            vars_patch=None,
            attempts=0,
            wait=timedelta(0),
            nudged=False,
            last_error="",
            reason="tests",
        ),
        record=StepRecord(ledger=ledger_sent({"message_id": "m"}), step_log=step_log),
    )
    assert released
    return TriggerInstance.objects.get(pk=claimed.pk)


def backdate(trigger: TriggerInstance, when: datetime) -> None:
    """Move a trigger's creation (and, when finished, completion) into the past."""
    fields = {"created_at": when}
    if trigger.completed_at is not None:
        fields["completed_at"] = when
    TriggerInstance.objects.filter(pk=trigger.pk).update(**fields)
