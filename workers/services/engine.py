"""Executing one node of one trigger: claim, run, record (docs/design.md, rules 3, 4, 6 and 7)."""

from __future__ import annotations

import json
import logging
import time
import uuid
from contextlib import nullcontext
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction

from common import tracing
from common.backoff import backoff
from common.leased_work import nudge_schedule
from common.metrics import rate_limit_wait_observe, step_lateness_observe
from deliveries.sql import MESSAGE_STATES_SQL, message_states_params
from deliveries.suppression import Suppressed, suppression_screen, unsubscribe_headers
from events import catalog as events
from events.dispatch import deliveries_enqueue_on_commit
from events.services.outbox import Announcement, announcements_json
from recipients.preferences import Decision, preferences_url, send_decision
from recipients.selectors import RunRecipient, recipient_for_run
from triggers.announce import WITHOUT_RELEASE, announcement
from triggers.dispatch import Nudge, nudges_held, trigger_enqueue_on_commit, triggers_publish
from triggers.models import TriggerInstance, TriggerStatus
from triggers.state import (
    Release,
    StepRecord,
    released_copy,
    trigger_claim_with,
    trigger_release_with,
)
from workers.errors import PermanentError, RateLimited, StepError, TransientError
from workers.nodes import CHANNELS, Channel, node_unrunnable
from workers.nodes.base import FOLLOW_AGAIN, FOLLOW_CONDITIONAL, FOLLOW_END, NodeRun
from workers.nodes.flow import EngineStep
from workers.providers import provider_for_attempt
from workers.services.caps import send_caps_take
from workers.services.ledger import (
    SendSlot,
    ledger_failed,
    ledger_sent,
    ledger_unused,
    send_slot,
)
from workers.services.provider_rates import provider_token_take
from workers.services.step_metrics import provider_call_metered, step_recorded
from workflows.definition import MARKETING
from workflows.nodes import NODE_TYPES
from workflows.selectors import CompiledWorkflow, workflow_version_compiled
from workflows.semantics import (
    PREFERENCES_URL,
    MissingAddress,
    Rendered,
    RenderError,
    execution_context,
    next_node_id,
    node_render,
    output_key,
    recipient_read,
    recipients_of,
    sending_types,
    sends,
    step_input,
    steps_context,
)
from workflows.templating import TemplateError

logger = logging.getLogger(__name__)


def trigger_context(
    trigger: TriggerInstance,
    workflow: CompiledWorkflow,
    *,
    now: datetime,
    recipient: RunRecipient | None = None,
) -> dict[str, Any]:
    """The execution context (workflows.semantics) of a step of `trigger`, with its recipient's
    profile when it has one (read by step_execute: step_recipient); a run for a recipient also
    sees `preferences_url`, a signed link to their preference page (docs/design.md,
    "Preferences"), which no step log keeps."""
    context = execution_context(
        recipient=recipient.context if recipient is not None else None,
        payload=trigger.payload,
        vars=trigger.vars,
        trigger={
            "id": str(trigger.pk),
            "idempotency_key": trigger.idempotency_key,
            "created_at": trigger.created_at.isoformat(),
        },
        workflow={
            "key": workflow.workflow_key,
            "name": workflow.workflow_name,
            "version": workflow.number,
        },
        now=now,
    )
    if recipient is not None and (link := preferences_url(trigger.recipient)):
        context[PREFERENCES_URL] = link
    if workflow.steps_read:  # one statement, only for a workflow whose conditions read `steps`
        context["steps"] = steps_context(_message_states(trigger, workflow.steps_read))
    return context


def _message_states(trigger: TriggerInstance, node_ids: tuple[str, ...]) -> dict[str, str]:
    with connection.cursor() as cursor:
        params = message_states_params(trigger_id=trigger.pk, node_ids=list(node_ids))
        cursor.execute(MESSAGE_STATES_SQL, params)
        return {node_id: state for node_id, state in cursor.fetchall()}


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
    """The one clock of a step (docs/design.md, "One clock"): the database's clock as the claim's
    statement read it, advanced by the worker's monotonic clock, which measures a duration and
    so is not moved by the skew of the worker's wall clock. What the step reckons in Python (a
    delay's end, a window's opening, a send cap's hour) is on this clock, and the release is
    handed the wait from it to the run's due time, which the database adds to its own clock
    (docs/design.md, rule 15); the worker's wall clock is never read."""

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


# The claim opens the send ledger for the node it lands on, when it is of one of these types.
SEND_CHANNELS = tuple(sending_types())


def step_execute(*, trigger_id: str, worker_id: str) -> str | None:
    """Run the current node of `trigger_id` if it can be claimed; return the new status or None.

    Safe under duplicated and redelivered messages (the claim admits one), under crashes (the
    lease expires and the sweeper re-nudges), and under cancellation (a cancelled trigger cannot
    be claimed, and the claim's statement is the one that opens the send ledger, before any side
    effect).
    """
    try:
        uuid.UUID(str(trigger_id))
    except ValueError:
        logger.warning("execute_node: %r is not a trigger id; dropped", trigger_id)
        return None
    lease_token = f"{worker_id}/{uuid.uuid4().hex[:12]}"
    traced_from = tracing.clock_ns() if tracing.active() else None
    claim = trigger_claim_with(
        trigger_id=trigger_id,
        worker_id=lease_token,
        lease_seconds=settings.NOTIFLOW_LEASE_SECONDS,
        channels=SEND_CHANNELS,
    )
    if claim is None:
        return None
    trigger = claim.trigger
    # The claim's clock is the step's clock (StepClock), read with no round trip of its own.
    clock = StepClock(claimed_at=claim.claimed_at, monotonic_at=time.monotonic())
    started_at = clock.now()
    workflow = workflow_version_compiled(trigger.workflow_version_id)
    step_lateness_observe(
        workflow=workflow.workflow_key,
        seconds=(claim.claimed_at - trigger.available_at).total_seconds(),
    )
    node_id = trigger.current_node_id or ""
    node = workflow.nodes.get(node_id, {"id": node_id, "type": "unknown"})
    recipient = step_recipient(trigger, workflow, node)
    step = StepAttempt(
        trigger=trigger,
        workflow=workflow,
        node=node,
        context=trigger_context(trigger, workflow, now=started_at, recipient=recipient),
        lease_token=lease_token,
        started_at=started_at,
        send_slot=send_slot(claim),
        clock=clock,
        recipient=recipient,
        suppression_generation=claim.suppression_generation,
        announced_to=claim.announced_to,
    )
    if traced_from is not None:
        return _traced(step, started_ns=traced_from)
    call = ProviderCall()
    outcome, run = _attempt(step, call)
    return _record_or_fail(step, outcome, run, call=call)


def _traced(step: StepAttempt, *, started_ns: int) -> str | None:
    """The step as step_execute runs it, in its span: a child of the run's stored trace context
    (docs/design.md, "Traces"), from before the claim to after the release."""
    trigger = step.trigger
    with tracing.step_span(
        trace_context=trigger.trace_context,
        trigger_id=str(trigger.pk),
        workflow_key=step.workflow.workflow_key,
        node_id=str(step.node["id"]),
        node_type=str(step.node.get("type", "")),
        attempt=trigger.attempts + 1,
        started_ns=started_ns,
    ) as span:
        call = ProviderCall()
        outcome, run = _attempt(step, call)
        status = _record_or_fail(step, outcome, run, call=call)
        tracing.step_outcome(span, status=status, error=outcome.error)
        return status


def step_recipient(
    trigger: TriggerInstance, workflow: CompiledWorkflow, node: dict[str, Any]
) -> RunRecipient | None:
    """The run's recipient with what its preferences need (the defaults of the workflow's
    category), read in one statement, only for a run that names one and a node that reads it
    (workflows.semantics.recipient_read: it sends, delivers, or its templates, conditions or
    time zone read it): any other step costs no statement for it (tests/test_query_counts.py)."""
    if not trigger.recipient:
        return None
    if not recipient_read(node, workflow.outgoing.get(str(node["id"]), [])):
        return None
    return recipient_for_run(trigger.recipient, category=workflow.preference_category)


def steps_execute(*, trigger_id: str, worker_id: str, queue: str | None) -> str | None:
    """step_execute, and then, while the run's next node is due at once on the same queue
    (`queue`: the one this task came from), the next steps in the same task instead of a nudge
    each: at most NOTIFLOW_STEPS_PER_TASK steps, for at most a quarter of the task's soft time
    limit (docs/design.md, "Several steps in one task").

    Every step is claimed, run and recorded exactly as alone (its own lease, its own release);
    only the nudge between two of them is not published. A crash between them loses that nudge,
    which the sweeper sends again (rule 5), as for any nudge lost.
    """
    limit = settings.NOTIFLOW_STEPS_PER_TASK
    if limit <= 1:
        return step_execute(trigger_id=trigger_id, worker_id=worker_id)
    deadline = time.monotonic() + settings.CELERY_TASK_SOFT_TIME_LIMIT / 4
    status: str | None = None
    for done in range(1, limit + 1):
        with nudges_held() as held:
            status = step_execute(trigger_id=trigger_id, worker_id=worker_id)
        if (
            status == TriggerStatus.ENQUEUED
            and done < limit
            and time.monotonic() < deadline
            and len(held) == 1
            and held[0].countdown is None
            and str(held[0].trigger_id) == str(trigger_id)
            and held[0].queue == queue
        ):
            continue
        if held:
            triggers_publish(held)
        break
    return status


def _attempt(step: StepAttempt, call: ProviderCall) -> tuple[Outcome, NodeRun | None]:
    """Run the claimed node; how the step ends, and what running it produced (if it got so far).
    Every error becomes an outcome: permanent, transient, or (a bug, an outage) transient."""
    trigger, node_id = step.trigger, step.node["id"]
    run: NodeRun | None = None
    try:
        if trigger.attempts > settings.NOTIFLOW_MAX_RETRIES:  # raised by reclaims (triggers/sql.py)
            raise PermanentError(
                f"node {node_id!r} failed or lost its worker {trigger.attempts} times (the last "
                "time its lease expired: the worker died or hung); not run again"
            )
        if node_id not in step.workflow.nodes:
            raise PermanentError(f"node {node_id!r} is not in version {step.workflow.number}")
        if unrunnable := node_unrunnable(step.node):  # e.g. no SMS provider on this worker
            raise PermanentError(unrunnable)
        if erased := _erased_skipped(step):
            return _success(step, erased, _next_node(step, erased)), erased
        try:
            rendered = node_render(step.node, step.context) if sends(step.node) else None
        except MissingAddress as exc:
            if not step.node.get("skip_missing"):
                raise
            run = _missing_skipped(step.node, exc)
            return _success(step, run, _next_node(step, run)), run
        run = _run_node(step, rendered, call)
        return _success(step, run, _next_node(step, run)), run
    except RateLimited as exc:
        rate_limit_wait_observe(provider=exc.provider, seconds=exc.wait.total_seconds())
        return _put_back(step, exc), run
    except (PermanentError, RenderError, TemplateError) as exc:
        return _failure(step, str(exc), permanent=True), run
    except TransientError as exc:
        return _failure(step, str(exc), permanent=False), run
    except Exception as exc:
        # A bug or an outage inside the engine is retried like any transient error, never stuck.
        logger.exception("trigger %s: unexpected error in node %s", trigger.pk, node_id)
        return _failure(step, f"{type(exc).__name__}: {exc}", permanent=False), run


def _record_or_fail(
    step: StepAttempt, outcome: Outcome, run: NodeRun | None, *, call: ProviderCall
) -> str | None:
    """_record, and when the database refuses that outcome, a failure saying so instead."""
    try:
        if connection.in_atomic_block:  # inside a caller's transaction: keep it usable
            with transaction.atomic():
                return _record(step, outcome, run, call=call)
        return _record(step, outcome, run, call=call)
    except (OperationalError, InterfaceError):
        raise  # the database is unreachable: the lease expires and the sweeper re-nudges
    except Exception as exc:
        # Recording failed for a reason a retry would meet again (a constraint, a value the
        # database refuses, a bug): fail the trigger saying so, instead of leaving it
        # `processing` for every lease expiry to reclaim, run and crash again.
        logger.exception(
            "trigger %s: could not record the outcome of node %s", step.trigger.pk, step.node["id"]
        )
        if run is not None and run.sent:  # the send happened: the ledger must still say so
            run = replace(run, output=_storable(run.output))
        return _record(
            step,
            _unrecordable(step, outcome, exc),
            run,
            call=call,
            log_step=False,
        )


@dataclass
class ProviderCall:
    """Whether this step called a provider, and which: only such a call counts in the send
    ledger, which records the provider of each."""

    attempted: bool = False
    provider: str = ""


def _run_node(step: StepAttempt, rendered: Rendered | None, call: ProviderCall) -> NodeRun:
    """Run the node as its type says (workflows.nodes): a type that sends, through its channel's
    provider (the send ledger, suppressions, rate limits and caps first); any other, its own
    `run`, given this step (EngineStep)."""
    node = step.node
    kind = NODE_TYPES[str(node["type"])]  # node_unrunnable let only registered types through
    if kind.channel is None:
        # A type that delivers without a provider (in-app) is skipped as a send is when the
        # person's preferences turn its channel off.
        if kind.delivers_on and (turned_off := _preference_off(step, kind.delivers_on)):
            skipped = turned_off.skipped_output(to=step.trigger.recipient)
            return NodeRun(output=skipped, vars_patch={output_key(node): skipped}, skipped=True)
        return kind.run(node, step=EngineStep(step.trigger, step.context, step.started_at))
    channel = CHANNELS[kind.channel]
    slot = step.send_slot
    if slot is None or rendered is None:  # the claim found no send node: versions cannot change
        raise RuntimeError(f"no send ledger row for node {node['id']!r}")
    if slot.recorded_result is not None:
        result = slot.recorded_result
    else:
        # Whom a skipped send names: its address, else (a chat node taking the recipient's) the
        # run's recipient.
        to = rendered.get("to") or step.trigger.recipient
        if turned_off := _preference_off(step, channel.name):
            skipped = turned_off.skipped_output(to=to)
            return NodeRun(output=skipped, vars_patch={output_key(node): skipped}, skipped=True)
        marketing = step.workflow.category == MARKETING
        try:
            rendered, left_out = suppression_screen(
                node=node,
                rendered=rendered,
                marketing=marketing,
                generation=step.suppression_generation,
            )
        except Suppressed as exc:
            if not exc.rule:  # a transactional send's hard bounce or complaint
                raise PermanentError(str(exc)) from exc
            skipped = exc.skipped_output(to=to)
            return NodeRun(output=skipped, vars_patch={output_key(node): skipped}, skipped=True)
        key = f"{step.trigger.pk}:{node['id']}"
        headers = _unsubscribe(rendered, key) if marketing and channel.unsubscribe_headers else None
        result = _send(step, channel, rendered, call, headers)
        if left_out:
            result = {**result, "suppressed": left_out}
    return NodeRun(
        output=result,
        vars_patch={output_key(node): result},
        sent=slot.recorded_result is None,
    )


def _preference_off(step: StepAttempt, channel: str) -> Decision | None:
    """The preference that turns this send off, or None: asked only of a run for a recipient
    (read with it: no statement of its own) and not of a required workflow."""
    if step.recipient is None or step.workflow.required:
        return None
    decision = send_decision(
        step.recipient,
        workflow=step.workflow.workflow_key,
        category=step.workflow.preference_category,
        channel=channel,
    )
    return None if decision.send else decision


def _erased_skipped(step: StepAttempt) -> NodeRun | None:
    """A send or delivery (in-app) of a run whose recipient was erased since it began, skipped
    before anything renders: nothing sent or stored, the run goes on, the step log and
    `message.skipped` say rule `recipient_erased`. Not when an earlier attempt already sent
    (the ledger's recorded result is the step's outcome), nor for a run without a recipient."""
    kind = NODE_TYPES[str(step.node["type"])]  # node_unrunnable let only registered types through
    if step.recipient is None or step.recipient.found or not (kind.sends or kind.delivers_on):
        return None
    if step.send_slot is not None and step.send_slot.recorded_result is not None:
        return None
    skipped = step.recipient.erased_output()
    return NodeRun(output=skipped, vars_patch={output_key(step.node): skipped}, skipped=True)


def _missing_skipped(node: dict[str, Any], missing: MissingAddress) -> NodeRun:
    """A send node skipped for want of an address (`skip_missing`): the run goes on, the
    output (and `message.skipped`) says why; the send slot the claim opened is given back."""
    skipped = missing.skipped_output()
    return NodeRun(output=skipped, vars_patch={output_key(node): skipped}, skipped=True)


def _unsubscribe(rendered: Rendered, idempotency_key: str) -> dict[str, str]:
    """A marketing email's one-click unsubscribe headers (one recipient: the validator's rule)."""
    try:
        return unsubscribe_headers(recipient=rendered["to"], idempotency_key=idempotency_key)
    except LookupError as exc:
        raise PermanentError(str(exc)) from exc


def _send(
    step: StepAttempt,
    channel: Channel,
    rendered: Rendered,
    call: ProviderCall,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The provider call of a send node, through this attempt's provider (docs/design.md,
    "Providers"): its rate limit first (no token: RateLimited, the step is put back), then the
    send caps, then the send."""
    node = step.node
    idempotency_key = f"{step.trigger.pk}:{node['id']}"
    named, attempts = str(node.get("provider") or ""), step.trigger.attempts
    provider = provider_for_attempt(channel.name, named=named, attempts=attempts)
    pause = provider_token_take(provider, idempotency_key=idempotency_key)
    if pause is not None:
        raise RateLimited(provider.name, pause)
    refused = send_caps_take(
        channel=channel.name,
        recipients=recipients_of(node, rendered),
        created_by=step.trigger.created_by,
        at=step.clock.now(),
    )
    if refused:
        raise PermanentError(refused)
    call.attempted, call.provider = True, provider.name
    try:
        with (
            provider_call_metered(
                channel=channel.name, provider=provider, named=named, attempts=attempts
            ),
            tracing.provider_span(channel=channel.name, provider=provider.name),
        ):
            return channel.send(
                rendered,
                idempotency_key=idempotency_key,
                provider=provider,
                headers=headers,
                recipient=step.recipient,
            )
    except RateLimited as exc:  # the provider asked to wait: no attempt, unless some went
        call.attempted = exc.reached
        raise
    except StepError as exc:  # the error says which provider failed (a failover follows)
        raise type(exc)(f"{provider.name}: {exc}") from exc


def _next_node(step: StepAttempt, run: NodeRun) -> str | None:
    """Where the run goes (NodeRun.follow): usually the target of the first outgoing edge whose
    `when` holds, seeing this node's output."""
    if run.follow == FOLLOW_AGAIN:
        return str(step.node["id"])
    if run.follow == FOLLOW_END:
        return None
    context = {**step.context, "vars": {**step.trigger.vars, **run.vars_patch}}
    return next_node_id(
        step.workflow.outgoing.get(step.node["id"], []),
        context,
        conditional_only=run.follow == FOLLOW_CONDITIONAL,
    )


def _success(step: StepAttempt, run: NodeRun, next_node_id: str | None) -> Outcome:
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
        wait=_until(step, run.resume_at),
        reason=reason,
        output=run.output,
        vars_patch=run.vars_patch,
    )


def _failure(step: StepAttempt, error: str, *, permanent: bool) -> Outcome:
    attempts = step.trigger.attempts + 1
    give_up = permanent or attempts > settings.NOTIFLOW_MAX_RETRIES
    kind = (
        "permanent" if permanent else f"attempt {attempts} of {settings.NOTIFLOW_MAX_RETRIES + 1}"
    )
    return Outcome(
        status=TriggerStatus.FAILED if give_up else TriggerStatus.ENQUEUED,
        next_node_id=step.node["id"],
        attempts=attempts,
        wait=timedelta(0) if give_up else retry_backoff(attempts),
        reason=f"{step.node['id']} failed ({kind}): {error}"[:1000],
        error=error,
    )


def _put_back(step: StepAttempt, limited: RateLimited) -> Outcome:
    """Enqueued again at the same node for when the provider's token is due: no attempt counted,
    no error, no step log (_record leaves it out: nothing was attempted)."""
    return Outcome(
        status=TriggerStatus.ENQUEUED,
        next_node_id=step.node["id"],
        attempts=step.trigger.attempts,
        wait=limited.wait,
        reason=f"{step.node['id']} waits: {limited}"[:1000],
        put_back=True,
    )


def _unrecordable(step: StepAttempt, outcome: Outcome, exc: Exception) -> Outcome:
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


def _storable(value: Any) -> Any:
    """`value` as JSON that PostgreSQL accepts: other types as their text, NUL characters
    (which jsonb refuses) dropped."""

    def clean(item: Any) -> Any:
        if isinstance(item, str):
            return item.replace("\x00", "")
        if isinstance(item, list):
            return [clean(element) for element in item]
        if isinstance(item, dict):
            return {clean(key): clean(element) for key, element in item.items()}
        return item

    return clean(json.loads(json.dumps(value, default=str)))


def _until(step: StepAttempt, at: datetime | None) -> timedelta:
    """The wait until `at` (a node's `resume_at`: a delay's end, a window's opening), on the
    step's clock: the release adds it to the database's (docs/design.md, rule 15)."""
    return max(at - step.clock.now(), timedelta(0)) if at is not None else timedelta(0)


def _schedule(outcome: Outcome) -> tuple[bool, float | None]:
    """Whether to nudge on commit (and with which countdown), or leave it to the sweeper: the
    leased-work policy (common/leased_work.py)."""
    if outcome.status != TriggerStatus.ENQUEUED:
        return False, None
    return nudge_schedule(outcome.wait.total_seconds())


def _step_log(step: StepAttempt, outcome: Outcome) -> dict[str, Any]:
    """The release's `step_log` argument: what the step log row says of this attempt (it
    succeeded when there is no error); the release stamps its `finished_at` on the database's
    clock."""
    what_it_read = step_input(
        node=step.node,
        edges=step.workflow.outgoing.get(step.node["id"], []),
        # The preference link is the person's to use: an operator reading logs needs it not.
        context={k: v for k, v in step.context.items() if k != PREFERENCES_URL},
    )
    return {
        "node_type": step.node["type"],
        "started_at": step.started_at.isoformat(),
        "input": what_it_read,
        "output": outcome.output,
        "error": outcome.error,
    }


def _ledger(step: StepAttempt, run: NodeRun | None, call: ProviderCall) -> dict[str, Any] | None:
    """The release's `ledger` argument: how the step leaves its send ledger row, if it has one
    to change."""
    slot = step.send_slot
    if run is not None and run.sent:
        return ledger_sent(run.output)
    if slot is not None and slot.recorded_result is None and not call.attempted:
        return ledger_unused()
    if call.attempted and call.provider:  # reached a provider and failed
        return ledger_failed(call.provider)
    return None


def _record(
    step: StepAttempt,
    outcome: Outcome,
    run: NodeRun | None,
    *,
    call: ProviderCall,
    log_step: bool = True,
) -> str | None:
    """One transaction per step outcome (docs/design.md, rule 4), and one call of the release:
    the fenced trigger update with its event, the send ledger, the step log and the events; then
    the next nudge, after commit.

    A provider call that happened is marked `sent` in the ledger whatever else happens, so no
    later attempt repeats it; a send slot the claim opened but that never reached the provider
    (the templates failed) gives its count back. If the lease was lost or the trigger cancelled
    meanwhile, the rest is dropped: the new owner (or nobody) records the step. `log_step=False`
    leaves the step log out (when writing it is what failed: the event carries the reason).
    A node's own writes (NodeRun.writes) follow the release in its transaction, only when it
    applied; an in-app message (NodeRun.inbox) is the release's own. No events are built when
    the claim found no webhook endpoint to hear them (they would be dropped unread).
    """
    now = step.clock.now()
    nudge, countdown = _schedule(outcome)
    release = Release(
        status=outcome.status,
        current_node_id=outcome.next_node_id,
        wait=outcome.wait,
        reason=outcome.reason,
        vars_patch=outcome.vars_patch,
        attempts=outcome.attempts,
        nudged=nudge,
        last_error=outcome.error,
    )
    announcements = _announcements(step, release, run, now) if step.announced_to else []
    inbox = run.inbox if run is not None and not outcome.error else None
    record = StepRecord(
        ledger=_ledger(step, run, call),
        step_log=_step_log(step, outcome) if log_step and not outcome.put_back else None,
        events=announcements_json(announcements) if announcements else None,
        inbox=json.dumps(inbox) if inbox is not None else None,
    )
    node_writes = run.writes if run is not None and not outcome.error else []
    with transaction.atomic() if node_writes else nullcontext():
        released = trigger_release_with(
            trigger=step.trigger, lease_token=step.lease_token, release=release, record=record
        )
        if released is not None:
            _node_writes_run(node_writes)
    if released is None:
        logger.info(
            "trigger %s: outcome of node %s not recorded: cancelled or lease lost meanwhile",
            step.trigger.pk,
            step.node["id"],
        )
        return None
    route, deliveries = released
    step_recorded(step, outcome, run)
    for callback in run.on_commit if run is not None and not outcome.error else ():
        transaction.on_commit(callback)
    if deliveries:
        deliveries_enqueue_on_commit(deliveries)
    if nudge:
        # After the release's commit (or the caller's, when called inside a transaction).
        trigger_enqueue_on_commit(
            Nudge(step.trigger.pk, queue=route.queue, priority=route.priority, countdown=countdown)
        )
    if outcome.error:
        logger.info("trigger %s: %s", step.trigger.pk, outcome.reason)
    return outcome.status


def _node_writes_run(writes: list[tuple[str, dict[str, Any]]]) -> None:
    """A node's own statements (NodeRun.writes), in the step's transaction after its release."""
    with connection.cursor() as cursor:
        for sql, params in writes:
            cursor.execute(sql, params)


def _announcements(
    step: StepAttempt, release: Release, run: NodeRun | None, now: datetime
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
        retry_at = (now + release.wait).isoformat()
        kinds.append((events.STEP_FAILED, {"step": {**failure, "retry_at": retry_at}}))
    if not kinds:
        return []
    after = released_copy(step.trigger, release, now=now)
    workflow = step.workflow
    return [
        announcement(
            kind, after, workflow_key=workflow.workflow_key, version=workflow.number, **extra
        )
        for kind, extra in kinds
    ] + unreleased


def retry_backoff(attempts: int) -> timedelta:
    """The wait before attempt `attempts` + 1 of a step (common.backoff): NOTIFLOW_RETRY_BASE_SECONDS
    doubled per attempt, NOTIFLOW_RETRY_JITTER, at most NOTIFLOW_RETRY_MAX_SECONDS."""
    return backoff(
        attempts,
        base=settings.NOTIFLOW_RETRY_BASE_SECONDS,
        jitter=settings.NOTIFLOW_RETRY_JITTER,
        maximum=settings.NOTIFLOW_RETRY_MAX_SECONDS,
    )
