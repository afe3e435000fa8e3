"""A person's side of "why didn't they get it?" (docs/design/deliveries.md, "Explaining a run"): the dry run
(what each sending node of a workflow's current version would do if it were triggered for them
now) and their timeline (their recent runs, each message's recorded decision and delivery state).

Here, in `deliveries`, because both read every room below: the person's preferences
(`recipients`), the suppression list and the delivery reports (this app), the send caps and the
providers (`workers`), the step logs (`workers`) and the runs (`triggers`). The dry run asks the
rules the send path asks, in the same order (preferences, address, suppression, send cap:
workers.services.send), through the same functions and sentences (workflows.decisions), and
writes nothing: no run, no ledger row, no cap counted. Its windows are asked with the person's
time zone and an empty payload; an address that the trigger's payload gives cannot be known
before the trigger, and it says so. A send that would go out now inside the person's quiet hours
says `deferred` with their end, as the send path would hold it (with the workflow's priority).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import redis
from django.db.models import QuerySet

from deliveries.models import DeliveryEvent
from deliveries.suppression import Suppressed, suppressed_among, suppression_skip_rule
from inbox.models import InboxMessage
from recipients.preferences import send_decision
from recipients.selectors import RunRecipient, recipient_for_run
from tenants.selectors import tenant_scope
from triggers.models import TriggerInstance
from workers.models import SendLedger, StepExecutionLog
from workers.providers import ProviderConfigError, channel_providers, provider_for_attempt
from workers.services.caps import send_caps_peek
from workflows.channels import SUPPRESS_ADDRESS, SUPPRESS_PERSON, ChannelSpec, channel_spec
from workflows.decisions import (
    DECISION_KEY,
    DEFERRED,
    FAILED,
    SENT,
    SKIPPED,
    StepDecision,
)
from workflows.definition import MARKETING
from workflows.models import Workflow
from workflows.nodes import NODE_TYPES
from workflows.nodes.timing import TimingType
from workflows.quiet_hours import quiet_hours_hold, run_urgent
from workflows.selectors import CompiledWorkflow, workflow_version_compiled
from workflows.semantics import MissingAddress, RenderError, execution_context, workflow_context
from workflows.templating import TemplateError


def recipient_dry_run(
    recipient_key: str, workflow: Workflow, *, now: datetime, tenant: str = ""
) -> dict[str, Any]:
    """What each sending node of `workflow`'s current version would decide for the person now,
    in the definition's order: {"node", "type", "channel", "decision", "reason", "rule",
    "evidence"}. For a run of `tenant` (an existing tenant's id), as a run of it would: the
    person's preferences for it and its defaults decide, its `tenant.*`, default locale and
    catalogs render (tenants.selectors.tenant_scope, the engine's)."""
    compiled = workflow_version_compiled(workflow.current_version_id)
    person = recipient_for_run(recipient_key, category=compiled.preference_category, tenant=tenant)
    context = execution_context(
        recipient=person.context,
        payload={},
        vars={},
        trigger={"id": "", "idempotency_key": "", "created_at": now.isoformat()},
        workflow=workflow_context(
            key=workflow.key,
            name=workflow.name,
            version=compiled.number,
            default_layout=compiled.default_layout,
        ),
        now=now,
        default_locale=compiled.default_locale,
        **tenant_scope(tenant),
    )
    nodes = []
    for node in compiled.nodes.values():
        kind = NODE_TYPES.get(str(node.get("type")))
        channel = (kind.channel or kind.delivers_on) if kind is not None else None
        if not channel:
            continue
        decided = _node_decision(compiled, node, channel_spec(channel), person, context, now)
        if decided["decision"] == SENT and kind is not None and kind.sends:
            decided = _quiet(decided, workflow, compiled, person, channel_spec(channel), now)
        nodes.append({"node": node["id"], "type": node["type"], "channel": channel, **decided})
    return {
        "recipient": recipient_key,
        "workflow": workflow.key,
        "tenant": tenant,
        "version": compiled.number,
        "at": now,
        "nodes": nodes,
    }


def _node_decision(
    workflow: CompiledWorkflow,
    node: dict[str, Any],
    spec: ChannelSpec,
    person: RunRecipient,
    context: dict[str, Any],
    now: datetime,
) -> dict[str, Any]:
    address, unknown = _address(node, spec, person, context)
    if isinstance(address, StepDecision):
        return address.as_json()
    to = (address or str(node.get("to", ""))) if unknown else address
    if not workflow.required:
        preference = send_decision(
            person,
            workflow=workflow.workflow_key,
            category=workflow.preference_category,
            channel=spec.name,
        )
        if not preference.send:
            return preference.skipped_decision(who=person.who, channel=spec.name, to=to).as_json()
    if not unknown and (stopped := _suppressed(workflow, node, spec, person, address)):
        return stopped.as_json()
    if not unknown and spec.providers is not None and (capped := _capped(spec, address, now)):
        return capped.as_json()
    went = _sent(node, spec, person, address, unknown)
    held = _held_on_the_way(workflow, node, context, now)
    if held is None:
        return went.as_json()
    reason = f"{went.reason}, first {held.reason[0].lower()}{held.reason[1:]}"
    return StepDecision(DEFERRED, reason, held.rule, {**went.evidence, **held.evidence}).as_json()


def _quiet(
    decided: dict[str, Any],
    workflow: Workflow,
    compiled: CompiledWorkflow,
    person: RunRecipient,
    spec: ChannelSpec,
    now: datetime,
) -> dict[str, Any]:
    """A send that would go out now, held instead by the person's quiet hours (the send path's
    rule, workers.services.send, with the workflow's priority: a trigger may set another)."""
    if not person.found or run_urgent(required=compiled.required, priority=workflow.priority):
        return decided
    hold = quiet_hours_hold(
        person.context.get("quiet_hours"),
        timezone=str(person.context.get("timezone") or ""),
        now=now,
        who=person.who,
        label=spec.label,
    )
    if hold is None:
        return decided
    return hold.decision.as_json() | {"evidence": {**decided["evidence"], **hold.decision.evidence}}


def _address(
    node: dict[str, Any], spec: ChannelSpec, person: RunRecipient, context: dict[str, Any]
) -> tuple[Any, bool]:
    """Where the send would go: (its address, or a StepDecision when it would be skipped or
    fail for want of one; and whether the address is unknown until a trigger's payload gives
    it)."""
    kind = NODE_TYPES[str(node["type"])]
    if spec.providers is None:  # in-app: the person's inbox
        return person.key, False
    if spec.channels_key and spec.addresses:  # push: every address the person has
        listed = person.channel(spec.channels_key)
        addresses = [a for a in listed or [] if not kind.address_problem(a)]  # type: ignore[attr-defined]
        if not addresses:
            where = f"recipient.channels.{spec.channels_key}"
            reason = f"{spec.label} would fail: {person.who} has no usable address in {where}"
            return StepDecision(FAILED, reason, "missing_address", {"missing": where}), False
        return person.key, False
    if spec.channels_key:  # chat: the node's address, else the person's
        if node.get("webhook_url") or node.get("channel"):
            return str(node.get("channel") or "the node's webhook"), False
        if person.channel(spec.channels_key):
            return f"recipient.channels.{spec.channels_key}", False
        where = f"recipient.channels.{spec.channels_key}"
        reason = f"{spec.label} would fail: {person.who} has no {where} and the node names none"
        return StepDecision(FAILED, reason, "missing_address", {"missing": where}), False
    try:
        return kind.field_render(node, "to", context).strip(), False
    except MissingAddress as exc:
        if node.get("skip_missing"):
            return exc.skipped_decision(channel=spec.name, who=person.who), False
        reason = f"{spec.label} would fail: {exc}"
        return StepDecision(FAILED, reason, "missing_address", {"missing": exc.missing}), False
    except (RenderError, TemplateError):
        return "", True  # `to` reads the payload: known only when triggered


def _suppressed(
    workflow: CompiledWorkflow,
    node: dict[str, Any],
    spec: ChannelSpec,
    person: RunRecipient,
    address: str,
) -> StepDecision | None:
    if spec.suppression == SUPPRESS_ADDRESS:
        wanted = [address]
    elif spec.suppression == SUPPRESS_PERSON:
        wanted = [person.key]
    else:
        return None
    marketing = workflow.category == MARKETING
    hits = list(
        suppressed_among(channel=spec.name, recipients=wanted, marketing=marketing).values()
    )
    if not hits:
        return None
    rule = suppression_skip_rule(
        hits=hits, marketing=marketing, skip_suppressed=bool(node.get("skip_suppressed"))
    )
    return Suppressed(hits, rule=rule).decided(channel=spec.name, to=address)


def _capped(spec: ChannelSpec, address: str, now: datetime) -> StepDecision | None:
    try:
        reached = send_caps_peek(channel=spec.name, recipients=[address], at=now)
    except redis.RedisError:
        return None  # the counters cannot be read: a send would be retried, not refused
    if reached is None:
        return None
    reason = f"{spec.label} would fail: {reached}"
    return StepDecision(FAILED, reason, "send_cap", reached.evidence())


def _sent(
    node: dict[str, Any], spec: ChannelSpec, person: RunRecipient, address: str, unknown: bool
) -> StepDecision:
    if spec.providers is None:
        return StepDecision(SENT, f"{spec.label}: would be stored in {person.who}'s inbox", "", {})
    provider = _provider(node, spec)
    through = f" through {provider}" if provider else ""
    evidence: dict[str, Any] = {"provider": provider} if provider else {}
    if unknown:
        shown = f"the address the trigger's payload gives (to: {node.get('to')})"
    elif spec.addresses:
        shown = f"every address in recipient.channels.{spec.channels_key}"
    else:
        shown = address
    evidence.update({"channel": spec.name, "to": None if unknown else address})
    return StepDecision(SENT, f"{spec.label} would be sent to {shown}{through}", "", evidence)


def _provider(node: dict[str, Any], spec: ChannelSpec) -> str:
    """The provider a first attempt would send through, as this process's settings name them;
    "" when it has none for the channel (or not the one the node names)."""
    try:
        if not channel_providers(spec.name):
            return ""
        named = str(node.get("provider") or "")
        return provider_for_attempt(spec.name, named=named, attempts=0).name
    except (LookupError, ProviderConfigError):
        return ""


def _held_on_the_way(
    workflow: CompiledWorkflow, node: dict[str, Any], context: dict[str, Any], now: datetime
) -> StepDecision | None:
    """The first node on the way to `node` that would hold the run now (a closed window, a
    delay: the timing types' own `decided`), or None. One whose value reads the payload (a
    window's zone, a delay's `until`) cannot be asked before a trigger and is passed over."""
    parents: dict[str, list[str]] = {}
    for source, edges in workflow.outgoing.items():
        for edge in edges:
            parents.setdefault(str(edge["to"]), []).append(source)
    seen, frontier = set(), list(parents.get(str(node["id"]), []))
    while frontier:
        current = frontier.pop()
        if current in seen:
            continue
        seen.add(current)
        frontier.extend(parents.get(current, []))
        upstream = workflow.nodes[current]
        kind = NODE_TYPES.get(str(upstream.get("type")))
        if not isinstance(kind, TimingType):
            continue
        try:
            decided = kind.decided(upstream, kind.wait(upstream, context, now), now)
        except (RenderError, TemplateError):
            continue
        if decided.decision == DEFERRED:
            return decided
    return None


# --- the timeline -----------------------------------------------------------------------------


def recipient_runs(recipient_key: str, *, since: datetime | None) -> QuerySet[TriggerInstance]:
    """The person's runs, newest first (trigger_recipient_created_idx), since `since`."""
    runs = TriggerInstance.objects.filter(recipient=recipient_key, deleted_at__isnull=True)
    if since is not None:
        runs = runs.filter(created_at__gte=since)
    return runs.select_related("workflow").order_by("-created_at", "-id")


def runs_messages(runs: list[TriggerInstance]) -> dict[Any, list[dict[str, Any]]]:
    """Each run's messages (its sending nodes' latest step logs, oldest first) with their
    recorded decision and delivery state: the newest provider report, else the inbox's
    seen/read, else the send ledger's status. Four statements for a page of runs."""
    ids = [run.pk for run in runs]
    sending = [name for name, kind in NODE_TYPES.items() if kind.sends or kind.delivers_on]
    logs = (
        StepExecutionLog.objects.filter(trigger_id__in=ids, node_type__in=sending)
        .order_by("trigger_id", "node_id", "-attempt")
        .distinct("trigger_id", "node_id")
        .values_list("trigger_id", "node_id", "node_type", "finished_at", "output")
    )
    states = {
        (t, n): s
        for t, n, s in SendLedger.objects.filter(trigger_id__in=ids).values_list(
            "trigger_id", "node_id", "status"
        )
    }
    for trigger_id, node_id, read_at, seen_at in InboxMessage.objects.filter(
        trigger_id__in=ids
    ).values_list("trigger_id", "node_id", "read_at", "seen_at"):
        states[trigger_id, node_id] = "read" if read_at else "seen" if seen_at else "sent"
    reports = (
        DeliveryEvent.objects.filter(trigger_id__in=ids)
        .order_by("trigger_id", "node_id", "-occurred_at", "-id")
        .distinct("trigger_id", "node_id")
        .values_list("trigger_id", "node_id", "event")
    )
    for trigger_id, node_id, event in reports:
        states[trigger_id, node_id] = event
    messages: dict[Any, list[dict[str, Any]]] = {run.pk: [] for run in runs}
    for trigger_id, node_id, node_type, finished_at, output in sorted(logs, key=lambda r: r[3]):
        decided = (output or {}).get(DECISION_KEY) or {}
        kind = NODE_TYPES[node_type]
        skipped = isinstance((output or {}).get("skipped"), str)
        messages[trigger_id].append(
            {
                "node": node_id,
                "type": node_type,
                "channel": kind.channel or kind.delivers_on,
                "decision": decided.get("decision") or (SKIPPED if skipped else ""),
                "reason": decided.get("reason", ""),
                "rule": decided.get("rule", ""),
                "state": "" if skipped else states.get((trigger_id, node_id), ""),
                "at": finished_at,
            }
        )
    return messages
