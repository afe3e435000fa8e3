"""The send path of a step (docs/design/channels.md, "Providers";
docs/design/deliveries.md, "Suppression and unsubscribe"; docs/design/recipients.md, "Preferences"): a node that sends goes through its channel's provider after the person's
preferences, the suppression list, the provider's rate limit and the send caps; a node that
sends nothing runs as its type says, given the step (EngineStep). Also the sends skipped before
anything renders or for want of an address."""

from __future__ import annotations

from typing import Any

from common import tracing
from deliveries.suppression import Suppressed, suppression_screen, unsubscribe_headers
from recipients.preferences import Decision, send_decision
from workers.channels import CHANNELS, Channel
from workers.channels.base import FOLLOW_AGAIN, NodeRun
from workers.errors import PermanentError, RateLimited, StepError
from workers.providers import provider_for_attempt
from workers.services.caps import send_caps_take
from workers.services.provider_rates import provider_token_take
from workers.services.step import ProviderCall, StepAttempt
from workers.services.step_metrics import provider_call_metered
from workers.services.step_port import EngineStep
from workflows.channels import CHANNEL_SPECS
from workflows.decisions import SENT, StepDecision
from workflows.definition import MARKETING
from workflows.nodes import NODE_TYPES
from workflows.quiet_hours import RULE_QUIET_HOURS, quiet_hours_hold, run_urgent
from workflows.semantics import MissingAddress, Rendered, output_key, recipients_of


def node_run(step: StepAttempt, rendered: Rendered | None, call: ProviderCall) -> NodeRun:
    """Run the node as its type says (workflows.nodes): a type that sends, through its channel's
    provider (the send ledger, suppressions, rate limits and caps first); any other, its own
    `run`, given this step (EngineStep)."""
    node = step.node
    kind = NODE_TYPES[str(node["type"])]  # node_unrunnable let only registered types through
    if kind.channel is None:
        # A type that delivers without a provider (in-app) is skipped as a send is when the
        # person's preferences turn its channel off.
        delivers_on = kind.delivers_on or ""
        preference = _preference(step, delivers_on) if delivers_on else None
        if preference is not None and not preference.send:
            return _skipped(step, preference, delivers_on, to=step.trigger.recipient)
        port = EngineStep(step.trigger, step.context, step.started_at, clock=step.clock.now)
        run = kind.run(node, step=port)
        if run.delivered:
            run.decision = _sent_decision(step, delivers_on, run.output, preference)
        return run
    channel = CHANNELS[kind.channel]
    slot = step.send_slot
    if slot is None or rendered is None:  # the claim found no send node: versions cannot change
        raise RuntimeError(f"no send ledger row for node {node['id']!r}")
    preference = None
    if slot.recorded_result is not None:
        result = slot.recorded_result
    else:
        # Whom a skipped send names: its address, else (a chat node taking the recipient's) the
        # run's recipient.
        to = rendered.get("to") or step.trigger.recipient
        preference = _preference(step, channel.spec.name)
        if preference is not None and not preference.send:
            return _skipped(step, preference, channel.spec.name, to=to)
        if held := _quiet_hours_held(step, channel.spec.label):
            return held
        marketing = step.workflow.category == MARKETING
        try:
            rendered, left_out = suppression_screen(
                node=node,
                rendered=rendered,
                marketing=marketing,
                generation=step.suppression_generation,
            )
        except Suppressed as exc:
            decided = exc.decided(channel=channel.spec.name, to=to)
            if not exc.rule:  # a transactional send's hard bounce or complaint
                raise PermanentError(
                    str(exc), rule=decided.rule, evidence=decided.evidence
                ) from exc
            skipped = exc.skipped_output(to=to)
            return NodeRun(
                output=skipped,
                vars_patch={output_key(node): skipped},
                skipped=True,
                decision=decided,
            )
        key = f"{step.trigger.pk}:{node['id']}"
        headers = (
            _unsubscribe(rendered, key) if marketing and channel.spec.unsubscribe_headers else None
        )
        result = _send(step, channel, rendered, call, headers)
        if left_out:
            result = {**result, "suppressed": left_out}
    return NodeRun(
        output=result,
        vars_patch={output_key(node): result},
        sent=slot.recorded_result is None,
        decision=_sent_decision(step, channel.spec.name, result, preference),
    )


def _preference(step: StepAttempt, channel: str) -> Decision | None:
    """The preference decision for this send, or None when none is asked: only a run for a
    recipient (read with it: no statement of its own) and not of a required workflow."""
    if step.recipient is None or step.workflow.required:
        return None
    return send_decision(
        step.recipient,
        workflow=step.workflow.workflow_key,
        category=step.workflow.preference_category,
        channel=channel,
    )


def _quiet_hours_held(step: StepAttempt, label: str) -> NodeRun | None:
    """A send inside the person's quiet hours (docs/quiet-hours.md), held until they end as a
    send window holds a run: the same node again at that time, the step log saying `deferred`
    with the end (the slot the claim opened is given back). None when the run is urgent (a
    required workflow, a priority at NOTIFLOW_QUIET_HOURS_BYPASS_PRIORITY or above), has no
    recipient, or the person has no quiet hours now."""
    recipient = step.recipient
    if recipient is None or not recipient.found:
        return None
    if run_urgent(required=step.workflow.required, priority=step.trigger.priority):
        return None
    hold = quiet_hours_hold(
        recipient.context.get("quiet_hours"),
        timezone=str(recipient.context.get("timezone") or ""),
        now=step.clock.now(),
        who=recipient.who,
        label=label,
    )
    if hold is None:
        return None
    output = {"deferred": RULE_QUIET_HOURS, "until": hold.decision.evidence["until"]}
    return NodeRun(output=output, resume_at=hold.until, follow=FOLLOW_AGAIN, decision=hold.decision)


def _skipped(step: StepAttempt, preference: Decision, channel: str, *, to: str) -> NodeRun:
    """A send the person's preferences turn off: skipped, saying whose switch."""
    skipped = preference.skipped_output(to=to)
    who = step.recipient.who if step.recipient is not None else step.trigger.recipient
    return NodeRun(
        output=skipped,
        vars_patch={output_key(step.node): skipped},
        skipped=True,
        decision=preference.skipped_decision(who=who, channel=channel, to=to),
    )


def _sent_decision(
    step: StepAttempt, channel: str, result: dict[str, Any], preference: Decision | None
) -> StepDecision:
    """What a send that went out decided (workflows.decisions): to whom, through which
    provider, and the preference that let it (when one named it)."""
    spec = CHANNEL_SPECS[channel]
    to = result.get("to") if spec.providers is not None else None
    if spec.providers is None:  # in-app: the person's inbox
        who = step.recipient.who if step.recipient is not None else step.trigger.recipient
        reason = f"{spec.label}: stored in {who}'s inbox"
    else:
        shown = f"{len(to)} address(es)" if isinstance(to, list) else to
        reason = f"{spec.label} sent to {shown} through {result.get('provider') or '?'}"
    evidence: dict[str, Any] = {"channel": channel}
    evidence.update(
        (name, result[name]) for name in ("to", "provider", "message_id") if name in result
    )
    if step.send_slot is not None and step.send_slot.recorded_result is not None:
        reason += " (by an earlier attempt: the send ledger's record)"
        evidence["recorded"] = True
    if preference is not None and preference.decided_by:
        reason += f"; {preference.decided_by} is on"
        evidence["preference"] = preference.decided_by
    if result.get("suppressed"):
        evidence["suppressed"] = result["suppressed"]
    return StepDecision(SENT, reason, "", evidence)


def erased_skipped(step: StepAttempt) -> NodeRun | None:
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
    label = CHANNEL_SPECS[str(kind.channel or kind.delivers_on)].label
    return NodeRun(
        output=skipped,
        vars_patch={output_key(step.node): skipped},
        skipped=True,
        decision=step.recipient.erased_decision(label),
    )


def missing_skipped(step: StepAttempt, missing: MissingAddress) -> NodeRun:
    """A send node skipped for want of an address (`skip_missing`): the run goes on, the
    output (and `message.skipped`) says why; the send slot the claim opened is given back."""
    skipped = missing.skipped_output()
    channel = str(NODE_TYPES[str(step.node["type"])].channel)
    who = step.recipient.who if step.recipient is not None else ""
    return NodeRun(
        output=skipped,
        vars_patch={output_key(step.node): skipped},
        skipped=True,
        decision=missing.skipped_decision(channel=channel, who=who),
    )


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
    """The provider call of a send node, through this attempt's provider (docs/design/channels.md,
    "Providers"): its rate limit first (no token: RateLimited, the step is put back), then the
    send caps, then the send; the result's `sent_at` is the step's clock when the provider
    answered."""
    node = step.node
    idempotency_key = f"{step.trigger.pk}:{node['id']}"
    named, attempts = str(node.get("provider") or ""), step.trigger.attempts
    provider = provider_for_attempt(channel.spec.name, named=named, attempts=attempts)
    pause = provider_token_take(provider, idempotency_key=idempotency_key)
    if pause is not None:
        raise RateLimited(provider.name, pause)
    refused = send_caps_take(
        channel=channel.spec.name,
        recipients=recipients_of(node, rendered),
        created_by=step.trigger.created_by,
        at=step.clock.now(),
    )
    if refused:
        raise PermanentError(str(refused), rule="send_cap", evidence=refused.evidence())
    call.attempted, call.provider = True, provider.name
    try:
        with (
            provider_call_metered(
                channel=channel.spec.name, provider=provider, named=named, attempts=attempts
            ),
            tracing.provider_span(channel=channel.spec.name, provider=provider.name),
        ):
            sent = channel.send(
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
    # Stored in the step log, the ledger and the run's vars: a time on the step's clock, the
    # database's (docs/design/rules.md, rule 15), never the worker's wall clock.
    return {**sent, "sent_at": step.clock.now().isoformat()}
