"""Executing one node of one trigger: claim, run, record (docs/design/rules.md, rules 3, 4, 6 and 7).

Over 500 lines: it still holds the send path and the announcements beside the step, until the
send path moves out (issue 45 §6, done on its own branch).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from contextlib import nullcontext
from dataclasses import replace
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction

from common import tracing
from common.leased_work import nudge_schedule
from common.metrics import rate_limit_wait_observe, step_lateness_observe
from deliveries.sql import MESSAGE_STATES_SQL, message_states_params
from events.dispatch import deliveries_enqueue_on_commit
from events.services.outbox import announcements_json
from recipients.preferences import preferences_url
from recipients.selectors import RunRecipient, recipient_for_run
from tenants.selectors import tenant_scope
from triggers.dispatch import Nudge, nudges_held, trigger_enqueue_on_commit, triggers_publish
from triggers.models import TriggerInstance, TriggerStatus
from triggers.steps import Release, StepRecord, trigger_claim_with, trigger_release_with
from workers.channels import node_unrunnable
from workers.channels.base import FOLLOW_AGAIN, FOLLOW_CONDITIONAL, FOLLOW_END, NodeRun
from workers.errors import PermanentError, RateLimited, TransientError
from workers.services.announce import step_announcements
from workers.services.ledger import ledger_failed, ledger_sent, ledger_unused, send_slot
from workers.services.send import erased_skipped, missing_skipped, node_run
from workers.services.step import (
    Outcome,
    ProviderCall,
    StepAttempt,
    StepClock,
    outcome_failure,
    outcome_put_back,
    outcome_success,
    outcome_unrecordable,
)
from workers.services.step_metrics import step_recorded
from workflows.decisions import DECISION_KEY
from workflows.rendered_with import rendered_with_current, rendered_with_recorded
from workflows.selectors import CompiledWorkflow, workflow_version_compiled
from workflows.semantics import (
    PREFERENCES_URL,
    MissingAddress,
    RenderError,
    execution_context,
    next_node_id,
    node_render,
    recipient_read,
    sending_types,
    sends,
    step_input,
    steps_context,
    workflow_context,
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
    sees `preferences_url`, a signed link to their preference page (docs/design/recipients.md,
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
        workflow=workflow_context(
            key=workflow.workflow_key,
            name=workflow.workflow_name,
            version=workflow.number,
            default_layout=workflow.default_layout,
        ),
        now=now,
        trigger_locale=trigger.locale,
        default_locale=workflow.default_locale,
        **tenant_scope(trigger.tenant),
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
        # It opens the send ledger for the node it lands on, when the node's type sends (asked
        # of the registry on each claim: a test may register a type).
        channels=tuple(sending_types()),
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
    with rendered_with_recorded():  # the content versions its step log keeps
        outcome, run = _attempt(step, call)
        return _record_or_fail(step, outcome, run, call=call)


def _traced(step: StepAttempt, *, started_ns: int) -> str | None:
    """The step as step_execute runs it, in its span: a child of the run's stored trace context
    (docs/design/observability.md, "Traces"), from before the claim to after the release."""
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
        with rendered_with_recorded():  # the content versions its step log keeps
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
    return recipient_for_run(
        trigger.recipient, category=workflow.preference_category, tenant=trigger.tenant
    )


def steps_execute(*, trigger_id: str, worker_id: str, queue: str | None) -> str | None:
    """step_execute, and then, while the run's next node is due at once on the same queue
    (`queue`: the one this task came from), the next steps in the same task instead of a nudge
    each: at most NOTIFLOW_STEPS_PER_TASK steps, for at most a quarter of the task's soft time
    limit (docs/design/run.md, "Several steps in one task").

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
        if erased := erased_skipped(step):
            return outcome_success(step, erased, _next_node(step, erased)), erased
        try:
            rendered = node_render(step.node, step.context) if sends(step.node) else None
        except MissingAddress as exc:
            if not step.node.get("skip_missing"):
                raise
            run = missing_skipped(step, exc)
            return outcome_success(step, run, _next_node(step, run)), run
        run = node_run(step, rendered, call)
        return outcome_success(step, run, _next_node(step, run)), run
    except RateLimited as exc:
        rate_limit_wait_observe(provider=exc.provider, seconds=exc.wait.total_seconds())
        return outcome_put_back(step, exc), run
    except (PermanentError, RenderError, TemplateError) as exc:
        return outcome_failure(step, str(exc), permanent=True, **_failure_facts(exc, call)), run
    except TransientError as exc:
        return outcome_failure(step, str(exc), permanent=False, **_failure_facts(exc, call)), run
    except Exception as exc:
        # A bug or an outage inside the engine is retried like any transient error, never stuck.
        logger.exception("trigger %s: unexpected error in node %s", trigger.pk, node_id)
        error = f"{type(exc).__name__}: {exc}"
        return outcome_failure(step, error, permanent=False, **_failure_facts(exc, call)), run


def _failure_facts(exc: Exception, call: ProviderCall) -> dict[str, Any]:
    """The rule and evidence a failure's decision names (workflows.decisions): the error's own
    (a send cap, a suppression), else what failed: an address, a template, a provider's answer,
    anything else (`error`)."""
    rule = getattr(exc, "rule", "")
    if not rule:
        if isinstance(exc, MissingAddress):
            rule = "missing_address"
        elif isinstance(exc, RenderError | TemplateError):
            rule = "template"
        else:
            rule = "provider" if call.attempted else "error"
    evidence = dict(getattr(exc, "evidence", {}))
    if call.provider:
        evidence["provider"] = call.provider
    return {"rule": rule, "evidence": evidence}


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
            outcome_unrecordable(step, outcome, exc),
            run,
            call=call,
            log_step=False,
        )


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
    if used := rendered_with_current():  # the versions of the content it rendered with
        what_it_read["content"] = used
    output = outcome.output
    if outcome.decision is not None:  # what the step decided (docs/design/rules.md, rule 20)
        output = {**(output or {}), DECISION_KEY: outcome.decision.as_json()}
    return {
        "node_type": step.node["type"],
        "started_at": step.started_at.isoformat(),
        "input": what_it_read,
        "output": output,
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
    """One transaction per step outcome (docs/design/rules.md, rule 4), and one call of the release:
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
    announcements = step_announcements(step, release, run) if step.announced_to else []
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
    if not writes:  # most nodes write nothing of their own: no cursor
        return
    with connection.cursor() as cursor:
        for sql, params in writes:
            cursor.execute(sql, params)
