"""Triggers in each state, reached through the real state machine (no bare status writes)."""

from __future__ import annotations

from datetime import timedelta

from tests.conftest import unique
from tests.factories import WorkflowFactory
from triggers.models import TriggerInstance
from triggers.services import trigger_create
from triggers.steps import Release, trigger_claim_with, trigger_release

TOKEN = "test-host:1/abc"


def new_trigger(workflow=None, *, priority: int | None = None, **payload) -> TriggerInstance:
    trigger, _ = trigger_create(
        workflow_key=(workflow or WorkflowFactory()).key,
        idempotency_key=unique("key"),
        payload=payload or {"email": "ok@example.com", "name": "Ann", "phone": "+1555"},
        priority=priority,
    )
    return trigger


def claim(*, trigger_id, worker_id: str, lease_seconds: float) -> TriggerInstance | None:
    """The run as the engine's claim takes it (trigger_claim_with, for a node that sends
    nothing), or None when the claim did not apply."""
    taken = trigger_claim_with(
        trigger_id=trigger_id, worker_id=worker_id, lease_seconds=lease_seconds
    )
    return taken.trigger if taken else None


def claimed(trigger: TriggerInstance, *, lease_seconds: float) -> TriggerInstance:
    """Claimed by a worker; a negative lease has already expired (the worker died)."""
    result = claim(trigger_id=trigger.pk, worker_id=TOKEN, lease_seconds=lease_seconds)
    assert result is not None
    return result


def released(
    running: TriggerInstance,
    *,
    status: str = "enqueued",
    attempts: int = 0,
    due_in: timedelta = timedelta(0),
    error: str = "",
    vars_patch: dict | None = None,
) -> TriggerInstance:
    """A run claimed under TOKEN, ended by the test as a worker would: back to `enqueued` at
    its node (due after `due_in`: a delay, or a retry when `attempts` > 0) or `failed`."""
    applied = trigger_release(
        trigger=running,
        lease_token=TOKEN,
        release=Release(
            status=status,
            current_node_id=running.current_node_id,
            wait=due_in,
            reason=f"{status} by the test",
            vars_patch=vars_patch,
            attempts=attempts,
            last_error=error,
        ),
    )
    assert applied
    return TriggerInstance.objects.get(pk=running.pk)


def failed(
    trigger: TriggerInstance, error: str = "SMTP 550 mailbox unavailable"
) -> TriggerInstance:
    return released(claimed(trigger, lease_seconds=60), status="failed", attempts=1, error=error)
