"""One claimed step as the engine's modules share it (docs/design/rules.md, rules 3, 4 and 7): what
it runs on (StepAttempt), its one clock (StepClock), whether it called a provider
(ProviderCall), and how it ends (Outcome, and the outcomes a step can have)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from common.backoff import backoff
from recipients.selectors import RunRecipient
from triggers.explain import rate_limited_reason
from triggers.models import TriggerInstance, TriggerStatus
from workers.channels.base import FOLLOW_AGAIN, NodeRun
from workers.errors import RateLimited
from workers.services.ledger import SendSlot
from workflows.channels import CHANNEL_SPECS
from workflows.decisions import FAILED, PASSED, RETRYING, StepDecision
from workflows.nodes import NODE_TYPES
from workflows.selectors import CompiledWorkflow


@dataclass(frozen=True)
class StepAttempt:
    """One claimed execution of a trigger's current node: what it ran on and under which lease."""

    trigger: TriggerInstance
    workflow: CompiledWorkflow
    node: dict[str, Any]
    context: dict[str, Any]
    lease_token: str
    started_at: datetime  # on the step's clock (StepClock), as every time of the step
    send_slot: SendSlot | None  # opened by the claim for a send node
    clock: StepClock
    # The run's recipient (profile and preferences) when it names one, read once per step.
    recipient: RunRecipient | None = None
    # As the claim read them: the suppression list's generation (a send node's), and whether any
    # webhook endpoint exists to hear the step's events (if not, none are built).
    suppression_generation: int | None = None
    announced_to: bool = True


@dataclass(frozen=True)
class StepClock:
    """The one clock of a step (docs/design/rules.md, rule 15): the database's clock as the claim's
    statement read it, advanced by the worker's monotonic clock, which measures a duration and
    so is not moved by the skew of the worker's wall clock. What the step reckons in Python (a
    delay's end, a window's opening, a send cap's hour) is on this clock, and the release is
    handed the wait from it to the run's due time, which the database adds to its own clock
    (docs/design/rules.md, rule 15); the worker's wall clock is never read."""

    claimed_at: datetime
    monotonic_at: float

    def now(self) -> datetime:
        return self.claimed_at + timedelta(seconds=time.monotonic() - self.monotonic_at)


@dataclass(frozen=True)
class Outcome:
    """How a step ends: the trigger's next state and what the step log says."""

    status: str
    next_node_id: str | None
    attempts: int
    wait: timedelta  # until the run is due, counted by the release on the database's clock
    reason: str
    output: dict[str, Any] | None = None
    vars_patch: dict[str, Any] | None = None
    error: str = ""
    put_back: bool = False  # not an attempt (a provider's rate limit): no step log
    # What the step decided, in its step log (docs/design/rules.md, rule 20); None: no step log.
    decision: StepDecision | None = None


@dataclass
class ProviderCall:
    """Whether this step called a provider, and which: only such a call counts in the send
    ledger, which records the provider of each."""

    attempted: bool = False
    provider: str = ""


def outcome_success(step: StepAttempt, run: NodeRun, next_node_id: str | None) -> Outcome:
    node_id = step.node["id"]
    if run.follow == FOLLOW_AGAIN:
        reason = f"{node_id} waits"
    else:
        done = f"skipped ({run.output['skipped']})" if run.skipped else "done"
        reason = f"{node_id} {done}" + (f"; next {next_node_id}" if next_node_id else "")
    return Outcome(
        status=TriggerStatus.ENQUEUED if next_node_id else TriggerStatus.COMPLETED,
        next_node_id=next_node_id,
        attempts=0,
        wait=until(step, run.resume_at),
        reason=reason,
        output=run.output,
        vars_patch=run.vars_patch,
        # A node type that decides nothing of its own (none registered today) went on.
        decision=run.decision or StepDecision(PASSED, f"{node_label(step.node)} done"),
    )


def outcome_failure(
    step: StepAttempt,
    error: str,
    *,
    permanent: bool,
    rule: str = "",
    evidence: dict[str, Any] | None = None,
) -> Outcome:
    """The step failed: the run fails (`permanent`, or its retries are spent) or the node is
    tried again after a backoff. `rule` and `evidence` are what its decision names (an error's
    own: a send cap; else `error`, or `provider` when a provider answered)."""
    attempts = step.trigger.attempts + 1
    allowed = settings.NOTIFLOW_MAX_RETRIES + 1
    give_up = permanent or attempts > settings.NOTIFLOW_MAX_RETRIES
    kind = "permanent" if permanent else f"attempt {attempts} of {allowed}"
    wait = timedelta(0) if give_up else retry_backoff(attempts)
    facts = {"error": error, "attempt": attempts, "permanent": permanent, **(evidence or {})}
    label = node_label(step.node)
    if give_up:
        decision = StepDecision(FAILED, f"{label} failed ({kind}): {error}"[:1000], rule, facts)
    else:
        facts["retry_in_seconds"] = round(wait.total_seconds(), 3)
        reason = f"{label} failed ({kind}), tried again in {wait.total_seconds():.0f}s: {error}"
        decision = StepDecision(RETRYING, reason[:1000], rule, facts)
    return Outcome(
        status=TriggerStatus.FAILED if give_up else TriggerStatus.ENQUEUED,
        next_node_id=step.node["id"],
        attempts=attempts,
        wait=wait,
        reason=f"{step.node['id']} failed ({kind}): {error}"[:1000],
        error=error,
        decision=decision,
    )


def outcome_put_back(step: StepAttempt, limited: RateLimited) -> Outcome:
    """Enqueued again at the same node for when the provider's token is due: no attempt counted,
    no error, no step log (_record leaves it out: nothing was attempted). Its status event's
    reason is the record of it (triggers.explain.rate_limited_reason: the run's story reads
    it back)."""
    return Outcome(
        status=TriggerStatus.ENQUEUED,
        next_node_id=step.node["id"],
        attempts=step.trigger.attempts,
        wait=limited.wait,
        reason=rate_limited_reason(
            str(step.node["id"]), provider=limited.provider, seconds=limited.wait.total_seconds()
        ),
        vars_patch=limited.vars_patch,
        put_back=True,
    )


def node_label(node: dict[str, Any]) -> str:
    """How a decision's sentence names a node: its channel's label for a node that sends or
    delivers ("Email"), else its type and id ("Delay 'wait'")."""
    kind = NODE_TYPES.get(str(node.get("type")))
    channel = (kind.channel or kind.delivers_on) if kind is not None else None
    if channel:
        return CHANNEL_SPECS[channel].label
    return f"{str(node.get('type')).capitalize()} {node.get('id')!r}"


def outcome_unrecordable(step: StepAttempt, outcome: Outcome, exc: Exception) -> Outcome:
    """The outcome that replaces one the database refused: failed at this node, saying why."""
    error = (
        f"could not record the outcome of node {step.node['id']} "
        f"({outcome.reason}): {type(exc).__name__}: {exc}"
    )[:1000]
    return Outcome(
        status=TriggerStatus.FAILED,
        next_node_id=step.node["id"],
        attempts=step.trigger.attempts + 1,
        wait=timedelta(0),
        reason=error,
        error=error,
    )


def until(step: StepAttempt, at: datetime | None) -> timedelta:
    """The wait until `at` (a node's `resume_at`: a delay's end, a window's opening), on the
    step's clock: the release adds it to the database's (docs/design/rules.md, rule 15)."""
    return max(at - step.clock.now(), timedelta(0)) if at is not None else timedelta(0)


def retry_backoff(attempts: int) -> timedelta:
    """The wait before attempt `attempts` + 1 of a step (common.backoff): NOTIFLOW_RETRY_BASE_SECONDS
    doubled per attempt, NOTIFLOW_RETRY_JITTER, at most NOTIFLOW_RETRY_MAX_SECONDS."""
    return backoff(
        attempts,
        base=settings.NOTIFLOW_RETRY_BASE_SECONDS,
        jitter=settings.NOTIFLOW_RETRY_JITTER,
        maximum=settings.NOTIFLOW_RETRY_MAX_SECONDS,
    )
