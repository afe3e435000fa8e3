"""Executing one node of one trigger: claim, run, record (DESIGN rules 3, 4, 6 and 7)."""

from __future__ import annotations

import logging
import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from triggers.dispatch import trigger_enqueue_on_commit
from triggers.models import TriggerInstance, TriggerStatus
from triggers.state import trigger_claim, trigger_release
from workers.errors import PermanentError, TransientError
from workers.models import StepExecutionLog
from workers.nodes import CHANNELS
from workers.services.ledger import LeaseLost, send_begin, send_complete
from workflows.definition import delay_of
from workflows.selectors import CompiledWorkflow, workflow_version_compiled
from workflows.templating import TemplateError, condition_holds

logger = logging.getLogger(__name__)


@dataclass
class NodeRun:
    """What running a node produced: its output, the vars patch, and how long to wait after."""

    output: dict[str, Any]
    vars_patch: dict[str, Any] = field(default_factory=dict)
    wait: timedelta = timedelta(0)
    sent: bool = False


def execution_context(
    trigger: TriggerInstance, workflow: CompiledWorkflow, *, now: datetime
) -> dict[str, Any]:
    """What templates see: payload, vars, trigger, workflow, now (all JSON-serialisable)."""
    return {
        "payload": trigger.payload,
        "vars": trigger.vars,
        "trigger": {
            "id": str(trigger.pk),
            "idempotency_key": trigger.idempotency_key,
            "created_at": trigger.created_at.isoformat(),
        },
        "workflow": {
            "key": workflow.workflow_key,
            "name": workflow.workflow_name,
            "version": workflow.number,
        },
        "now": now.isoformat(),
    }


def step_execute(*, trigger_id: str, worker_id: str) -> str | None:
    """Run the current node of `trigger_id` if it can be claimed; return the new status or None.

    Safe under duplicated and redelivered messages (the claim admits one), under crashes (the
    lease expires and the sweeper re-nudges), and under cancellation (checked in the same
    statement that opens the send ledger, before any side effect).
    """
    try:
        uuid.UUID(str(trigger_id))
    except ValueError:
        logger.warning("execute_node: %r is not a trigger id; dropped", trigger_id)
        return None
    lease_token = f"{worker_id}/{uuid.uuid4().hex[:12]}"
    trigger = trigger_claim(
        trigger_id=trigger_id, worker_id=lease_token, lease_seconds=settings.NOTIFLOW_LEASE_SECONDS
    )
    if trigger is None:
        return None
    started_at = timezone.now()
    workflow = workflow_version_compiled(trigger.workflow_version_id)
    node = workflow.nodes.get(trigger.current_node_id or "")
    context = execution_context(trigger, workflow, now=started_at)
    try:
        if node is None:
            raise PermanentError(
                f"node {trigger.current_node_id!r} is not in version {workflow.number}"
            )
        run = _run_node(trigger, node, context, lease_token)
    except LeaseLost:
        logger.info("trigger %s: lease lost before sending; leaving it", trigger.pk)
        return None
    except PermanentError as exc:
        return _record_failure(trigger, node, context, lease_token, started_at, str(exc), True)
    except TransientError as exc:
        return _record_failure(trigger, node, context, lease_token, started_at, str(exc), False)
    except Exception as exc:
        # A bug or an outage inside the engine is retried like any transient error, never stuck.
        logger.exception(
            "trigger %s: unexpected error in node %s", trigger.pk, trigger.current_node_id
        )
        return _record_failure(
            trigger, node, context, lease_token, started_at, f"{type(exc).__name__}: {exc}", False
        )
    return _record_success(trigger, workflow, node, context, lease_token, started_at, run)


def _run_node(
    trigger: TriggerInstance, node: dict[str, Any], context: dict[str, Any], lease_token: str
) -> NodeRun:
    if node["type"] == "delay":
        wait = delay_of(node)
        return NodeRun(output={"delay_ms": int(wait.total_seconds() * 1000)}, wait=wait)
    channel = CHANNELS[node["type"]]
    rendered = channel.render(node, context)
    slot = send_begin(
        trigger=trigger, node_id=node["id"], channel=channel.name, lease_token=lease_token
    )
    if slot.recorded_result is not None:
        result = slot.recorded_result
    else:
        result = channel.send(rendered, idempotency_key=f"{trigger.pk}:{node['id']}")
    output_key = f"{channel.name}_{node['id']}"
    return NodeRun(
        output=result, vars_patch={output_key: result}, sent=slot.recorded_result is None
    )


def _next_node(workflow: CompiledWorkflow, node_id: str, context: dict[str, Any]) -> str | None:
    for edge in workflow.outgoing.get(node_id, []):
        if condition_holds(edge.get("when"), context):
            return str(edge["to"])
    return None


def _schedule(available_at: datetime, now: datetime) -> tuple[bool, float | None]:
    """Whether to nudge now (and with which countdown), or leave a long wait to the sweeper."""
    wait = (available_at - now).total_seconds()
    if wait <= 0:
        return True, None
    if wait <= settings.NOTIFLOW_MAX_COUNTDOWN_SECONDS:
        return True, wait
    return False, None


def _record_success(
    trigger: TriggerInstance,
    workflow: CompiledWorkflow,
    node: dict[str, Any],
    context: dict[str, Any],
    lease_token: str,
    started_at: datetime,
    run: NodeRun,
) -> str | None:
    after = {**context, "vars": {**trigger.vars, **run.vars_patch}}
    try:
        next_node_id = _next_node(workflow, node["id"], after)
    except TemplateError as exc:
        return _record_failure(trigger, node, context, lease_token, started_at, str(exc), True)
    now = timezone.now()
    available_at = now + run.wait
    nudge, countdown = _schedule(available_at, now) if next_node_id else (False, None)
    status = TriggerStatus.ENQUEUED if next_node_id else TriggerStatus.COMPLETED
    with transaction.atomic():
        if run.sent:
            send_complete(trigger=trigger, node_id=node["id"], result=run.output)
        applied = trigger_release(
            trigger=trigger,
            lease_token=lease_token,
            status=status,
            current_node_id=next_node_id,
            vars_patch=run.vars_patch,
            attempts=0,
            available_at=available_at,
            nudged=nudge,
            last_error="",
            reason=f"{node['id']} done" + (f"; next {next_node_id}" if next_node_id else ""),
        )
        if not applied:
            _outcome_dropped(trigger)
            return None
        _log_step(trigger, node, context, started_at, now, output=run.output, error="")
        if nudge:
            trigger_enqueue_on_commit(trigger.pk, countdown=countdown)
    return status


def _record_failure(
    trigger: TriggerInstance,
    node: dict[str, Any] | None,
    context: dict[str, Any],
    lease_token: str,
    started_at: datetime,
    error: str,
    permanent: bool,
) -> str | None:
    attempts = trigger.attempts + 1
    now = timezone.now()
    give_up = permanent or attempts > settings.NOTIFLOW_MAX_RETRIES
    available_at = now if give_up else now + retry_backoff(attempts)
    nudge, countdown = (False, None) if give_up else _schedule(available_at, now)
    status = TriggerStatus.FAILED if give_up else TriggerStatus.ENQUEUED
    kind = (
        "permanent" if permanent else f"attempt {attempts} of {settings.NOTIFLOW_MAX_RETRIES + 1}"
    )
    with transaction.atomic():
        applied = trigger_release(
            trigger=trigger,
            lease_token=lease_token,
            status=status,
            current_node_id=trigger.current_node_id,
            vars_patch=None,
            attempts=attempts,
            available_at=available_at,
            nudged=nudge,
            last_error=error,
            reason=f"{trigger.current_node_id} failed ({kind}): {error}"[:1000],
        )
        if not applied:
            _outcome_dropped(trigger)
            return None
        fallback = {"id": trigger.current_node_id or "", "type": "unknown"}
        _log_step(trigger, node or fallback, context, started_at, now, output=None, error=error)
        if nudge:
            trigger_enqueue_on_commit(trigger.pk, countdown=countdown)
    logger.info(
        "trigger %s node %s failed (%s): %s", trigger.pk, trigger.current_node_id, kind, error
    )
    return status


def _outcome_dropped(trigger: TriggerInstance) -> None:
    logger.info(
        "trigger %s: outcome of node %s not recorded: cancelled or lease lost meanwhile",
        trigger.pk,
        trigger.current_node_id,
    )


def retry_backoff(attempts: int) -> timedelta:
    """base * 2^(attempts-1), stretched by up to NOTIFLOW_RETRY_JITTER (a fraction) at random."""
    base = settings.NOTIFLOW_RETRY_BASE_SECONDS * 2 ** (attempts - 1)
    return timedelta(seconds=base * (1 + random.random() * settings.NOTIFLOW_RETRY_JITTER))


def _log_step(
    trigger: TriggerInstance,
    node: dict[str, Any],
    context: dict[str, Any],
    started_at: datetime,
    finished_at: datetime,
    *,
    output: dict[str, Any] | None,
    error: str,
) -> None:
    StepExecutionLog.objects.create(
        trigger_id=trigger.pk,
        workflow_id=trigger.workflow_id,
        node_id=node["id"],
        node_type=node["type"],
        attempt=trigger.attempts + 1,
        started_at=started_at,
        finished_at=finished_at,
        input=context,
        output=output,
        success=not error,
        error=error,
    )
