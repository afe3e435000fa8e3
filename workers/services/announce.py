"""What a step's outcome announces (events.catalog; docs/design/rules.md, rule 10): the message it
sent or skipped, the step's failure (to be retried) or the trigger's end, written by the
release in the step's transaction. Each shows the run as claimed; the release overlays what it
set (the run's status, cursor, vars, clocks, and a retry's `retry_at`) from its own row
(triggers migration 0024), so nothing here says what a release sets."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from events import catalog as events
from events.services.outbox import Announcement
from triggers.announce import WITHOUT_RELEASE, announcement
from triggers.models import TriggerStatus
from triggers.steps import Release
from workers.channels.base import NodeRun
from workers.services.step import StepAttempt
from workflows.nodes import NODE_TYPES


def step_announcements(
    step: StepAttempt, release: Release, run: NodeRun | None
) -> list[Announcement]:
    """The events a step's outcome announces (events.catalog): the message it sent or skipped,
    the step's failure (to be retried) or the trigger's end, each written only if the release applies.
    A send is announced in any case: when the release cannot apply (the trigger was cancelled
    or the lease lost meanwhile), its message.sent shows the trigger as the step found it."""
    kinds: list[tuple[str, dict[str, Any]]] = []
    node = step.node
    channel = NODE_TYPES[str(node["type"])].preference_channel if run is not None else None
    unreleased: list[Announcement] = []
    if run is not None and run.skipped:
        skipped = {"node_id": node["id"], "channel": channel, **run.output}
        kinds.append((events.MESSAGE_SKIPPED, {"message": skipped}))
    if run is not None and run.delivered:  # stored by its own writes: announced with them
        message = {"node_id": node["id"], **run.output}
        kinds.append((events.MESSAGE_SENT, {"message": message}))
    if run is not None and run.sent:
        message = {"node_id": node["id"], "channel": channel, **run.output}
        kinds.append((events.MESSAGE_SENT, {"message": message}))
        if run.output.get("gone"):  # push addresses the service says are gone (removed)
            kinds.append((events.MESSAGE_FAILED, {"message": {**message, "failed": "gone"}}))
        workflow = step.workflow
        unreleased.append(
            announcement(
                events.MESSAGE_SENT,
                step.trigger,
                workflow_key=workflow.workflow_key,
                version=workflow.number,
                gate=WITHOUT_RELEASE,
                message=message,
            )
        )
    failure = {
        "node_id": node["id"],
        "node_type": node["type"],
        "attempt": release.attempts,
        "max_attempts": settings.NOTIFLOW_MAX_RETRIES + 1,
        "error": release.last_error,
    }
    if release.status == TriggerStatus.COMPLETED:
        kinds.append((events.TRIGGER_COMPLETED, {}))
    elif release.status == TriggerStatus.FAILED:
        kinds.append((events.TRIGGER_FAILED, {"step": failure}))
    elif release.last_error:  # enqueued again at the same node: a retry
        # Its due time, the run's new available_at: the release fills it in.
        kinds.append((events.STEP_FAILED, {"step": {**failure, "retry_at": None}}))
    if not kinds:
        return []
    workflow = step.workflow
    return [
        announcement(
            kind,
            step.trigger,
            workflow_key=workflow.workflow_key,
            version=workflow.number,
            **extra,
        )
        for kind, extra in kinds
    ] + unreleased
