"""The wait_event node type: the run waits, `waiting`, for an event with `event`'s name whose
data holds every rendered `match` value, until `timeout` (docs/design/waits.md, "Waiting for
events"). It leaves `vars.<id>` = {received, event, timed_out}; edges branch on it with `when`.

The wait itself is in PostgreSQL (waits/), behind the StepPort: the first step registers it
and looks back for an event that came first; unresolved, the run parks at the node, due at the
deadline, and an event (POST /api/events/) or the sweeper's timeout resumes it; the node's next
step reads how the wait was resolved."""

from __future__ import annotations

import difflib
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar

from workflows.decisions import PASSED, WAITING, StepDecision, moment
from workflows.definition import MAX_DELAY, duration_parse
from workflows.nodes.base import (
    FOLLOW_AGAIN,
    NodePreview,
    NodeRun,
    NodeType,
    Problem,
    RenderedField,
    RenderError,
    StepPort,
    output_key,
)
from workflows.templating import TemplateError, render_budget, template_check, template_render

if TYPE_CHECKING:
    from django import forms

EVENT_NAME_MAX = 200
MATCH_KEYS_MAX = 20
MATCH_VALUE_MAX = 500
MESSAGE_EVENT_PREFIX = "message."
# The states of a message a wait may name (`message.<state>`): what deliveries records of a
# provider's reports (anymail's normalised events, Twilio's statuses mapped) and the inbox's
# marks, as waits/messages.py posts them. A name outside them would wait until its timeout.
MESSAGE_STATES = (
    "sent",
    "delivered",
    "opened",
    "clicked",
    "seen",
    "read",
    "bounced",
    "failed",
    "deferred",
    "rejected",
    "complained",
    "unsubscribed",
)


def _duration(value: Any, field: str, *, low: timedelta) -> list[Problem]:
    try:
        length = duration_parse(str(value))
    except ValueError as exc:
        return [(field, str(exc))]
    if not low <= length <= MAX_DELAY:
        return [(field, f"must be from {int(low.total_seconds())} seconds to 365 days")]
    return []


def _did_you_mean(name: str, known: list[str] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    if close:
        return f"; did you mean {close[0]!r}?"
    return f" ({', '.join(known)})"


def _message_state_problems(state: str) -> list[Problem]:
    if state in MESSAGE_STATES:
        return []
    prefixed = [MESSAGE_EVENT_PREFIX + known for known in MESSAGE_STATES]
    named = MESSAGE_EVENT_PREFIX + state
    return [("event", f"{named!r} is not a message state{_did_you_mean(named, prefixed)}")]


class WaitEventNode(NodeType):
    name = "wait_event"
    required = ("event", "timeout")
    optional = ("match", "lookback", "message")
    outputs = True
    output_under_id = True
    colours = ("#fdf3e1", "#b7791f")
    otherwise_label = "otherwise"
    field_schemas: ClassVar[dict[str, dict[str, Any]]] = {
        "event": {"type": "string", "example": "order.paid", "maxLength": EVENT_NAME_MAX},
        "match": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "event data key -> a template; the event's data must hold each value",
            "example": {"order_id": "{{ payload.order_id }}"},
        },
        "timeout": {"type": "string", "example": "48h"},
        "lookback": {
            "type": "string",
            "example": "1h",
            "description": "an event received this long before the node was reached counts",
        },
        "message": {
            "type": "string",
            "description": "an earlier send step's id: wait for its message's `event` "
            "(message.delivered, message.opened, message.clicked, message.seen, message.read, ...)",
        },
    }
    form_groups = (("event", "timeout", "lookback"), ("match",))
    takes_posted_events = True

    def problems(self, node: dict[str, Any]) -> list[Problem]:
        found: list[Problem] = []
        event = node.get("event")
        if isinstance(event, str) and len(event) > EVENT_NAME_MAX:
            found.append(("event", f"at most {EVENT_NAME_MAX} characters"))
        if node.get("timeout") not in (None, ""):
            found += _duration(node["timeout"], "timeout", low=timedelta(seconds=1))
        if node.get("lookback") not in (None, ""):
            found += _duration(node["lookback"], "lookback", low=timedelta(0))
        match = node.get("match", {})
        if not isinstance(match, dict):
            return [*found, ("match", "must be an object of data key -> template")]
        if len(match) > MATCH_KEYS_MAX:
            found.append(("match", f"at most {MATCH_KEYS_MAX} keys"))
        for key, value in match.items():
            if not isinstance(value, str) or not key:
                found.append(("match", f"{key!r}: each value must be a string (a template)"))
                continue
            try:
                template_check(value)
            except TemplateError as exc:
                found.append(("match", f"{key!r}: {exc}"))
        if node.get("message") not in (None, ""):
            if node.get("match"):
                found.append(("match", "a wait for a message matches its run's message: no match"))
            if isinstance(event, str) and not event.startswith(MESSAGE_EVENT_PREFIX):
                found.append(("event", "a wait for a message waits for message.<state>"))
        if isinstance(event, str) and event.startswith(MESSAGE_EVENT_PREFIX):
            found += _message_state_problems(event.removeprefix(MESSAGE_EVENT_PREFIX))
        return found

    def graph_problems(
        self, node: dict[str, Any], *, before: list[dict[str, Any]]
    ) -> list[Problem]:
        """A message wait's `message` is a node that leaves a message and can run before it: any
        other id would never see a report, and the run would wait until its timeout."""
        message = node.get("message")
        if message in (None, "") or not isinstance(message, str):
            return []
        from workflows.nodes import node_type_of  # the registry imports this module

        senders = [n["id"] for n in before if (kind := node_type_of(n)) and kind.has_message]
        if message in senders:
            return []
        if not senders:
            return [("message", f"{message!r} is not an earlier send step: none comes before")]
        return [
            ("message", f"{message!r} is not an earlier send step{_did_you_mean(message, senders)}")
        ]

    def template_sources(self, node: dict[str, Any]) -> list[str]:
        match = node.get("match")
        values = match.values() if isinstance(match, dict) else ()
        return [*super().template_sources(node), *(v for v in values if isinstance(v, str))]

    def match(self, node: dict[str, Any], context: dict[str, Any]) -> dict[str, str]:
        """The rendered `match`; RenderError naming the key that does not render."""
        rendered: dict[str, str] = {}
        with render_budget():
            for key, template in (node.get("match") or {}).items():
                try:
                    value = template_render(str(template), context)
                except TemplateError as exc:
                    message = f"node {node['id']!r} field 'match' {key!r}: {exc}"
                    raise RenderError(message, field="match", detail=str(exc)) from exc
                if len(value) > MATCH_VALUE_MAX:
                    raise RenderError(
                        f"node {node['id']!r} field 'match' {key!r}: rendered {len(value)} "
                        f"characters, more than {MATCH_VALUE_MAX}",
                        field="match",
                    )
                rendered[key] = value
        return rendered

    def lookback(self, node: dict[str, Any]) -> timedelta:
        return duration_parse(str(node.get("lookback") or "0s"))

    def run(self, node: dict[str, Any], *, step: StepPort) -> NodeRun:
        name = str(node["event"])
        lookback = self.lookback(node)
        if node.get("message"):  # the run's own message: any report since the run began counts
            match = {"trigger_id": step.trigger_id, "node_id": str(node["message"])}
            started = datetime.fromisoformat(str(step.context["trigger"]["created_at"]))
            lookback = max(lookback, step.now - started + timedelta(minutes=1))
        else:
            match = self.match(node, step.context)
        wait = step.event_wait(
            node_id=node["id"],
            name=name,
            match=match,
            deadline=step.now + duration_parse(str(node["timeout"])),
            lookback=lookback,
        )
        output: dict[str, Any]
        evidence = {"node": node["id"], "event": name, "match": match}
        if not wait.resolved:  # park: an event or the timeout resumes the run at this node
            output = {"waiting_for": name, "until": wait.deadline.isoformat()}
            park = step.event_wait_park(node_id=node["id"], name=name)
            reason = f"Waiting for event {name!r} until {moment(wait.deadline)}"
            decision = StepDecision(WAITING, reason, "wait_event", {**evidence, **output})
            return NodeRun(
                output=output,
                resume_at=wait.deadline,
                follow=FOLLOW_AGAIN,
                writes=[park],
                decision=decision,
            )
        output = {"received": wait.received, "event": wait.event, "timed_out": wait.timed_out}
        if wait.received:
            came = (wait.event or {}).get("id")
            reason = f"Event {name!r} came ({came}): went on"
        else:
            reason = f"No event {name!r} came before the timeout ({node['timeout']}): went on"
        evidence = {**evidence, "received": wait.received, "timed_out": wait.timed_out}
        decision = StepDecision(PASSED, reason, "wait_event", evidence)
        return NodeRun(output=output, vars_patch={output_key(node): output}, decision=decision)

    def preview(self, node: dict[str, Any], context: dict[str, Any], now: datetime) -> NodePreview:
        match = {} if node.get("message") else self.match(node, context)
        fields = [RenderedField(f"match.{key}", value) for key, value in match.items()]
        note = f"waits up to {node.get('timeout')} for {node.get('event')}"
        return NodePreview(node["id"], self.name, fields, note=note)

    def placeholder(
        self, node: dict[str, Any], *, preview: NodePreview, payload: dict[str, Any], now: datetime
    ) -> dict[str, Any]:
        """An event that came in time, carrying the matched values."""
        data = {f.name.removeprefix("match."): f.value for f in preview.fields}
        event = {"id": "preview", "name": node.get("event"), "data": data}
        return {"received": True, "event": event, "timed_out": False}

    def summary(self, node: dict[str, Any]) -> str:
        return f"wait for {node.get('event')} · {node.get('timeout')}"

    def form_fields(self) -> dict[str, forms.Field]:
        from django import forms

        from workflows.admin.forms import OptionalJSONField  # the admin's, as forms are

        return {
            "event": forms.CharField(
                required=False,
                widget=forms.TextInput(attrs={"placeholder": "order.paid"}),
                help_text="the event's name",
            ),
            "timeout": forms.CharField(
                required=False,
                widget=forms.TextInput(attrs={"size": 8, "placeholder": "48h"}),
                help_text="how long to wait, e.g. 10m, 48h",
            ),
            "lookback": forms.CharField(
                required=False,
                widget=forms.TextInput(attrs={"size": 8, "placeholder": "0s"}),
                help_text="an event this much earlier than the node counts",
            ),
            "match": OptionalJSONField(
                required=False,
                help_text='e.g. {"order_id": "{{ payload.order_id }}"}',
            ),
        }
