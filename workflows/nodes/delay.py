"""The delay node type: wait a fixed time (`delay_ms` or `duration`) or `until` a time."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar

from workflows.decisions import DEFERRED, PASSED, StepDecision, moment
from workflows.definition import MAX_DELAY, duration_parse
from workflows.nodes.base import Problem, value_error
from workflows.nodes.timing import TimingType, Wait, milliseconds
from workflows.templating import render_budget
from workflows.timing import until_parse

if TYPE_CHECKING:
    from django import forms

DELAY_UNITS = [("s", "seconds"), ("m", "minutes"), ("h", "hours"), ("d", "days"), ("ms", "ms")]
_UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def delay_spelled(node: dict[str, Any]) -> str:
    """A delay node's wait as its author wrote it ("15m", "1500 ms", "until {{ ... }}"), or ""."""
    if node.get("until"):
        return f"until {node['until']}"
    if node.get("duration"):
        return str(node["duration"])
    return f"{node['delay_ms']} ms" if node.get("delay_ms") is not None else ""


def delay_of(node: dict[str, Any]) -> timedelta:
    """The fixed wait a (validated) delay node asks for (none for a delay `until` a time)."""
    if node.get("until"):
        return timedelta(0)
    if node.get("delay_ms") is not None:
        return timedelta(milliseconds=int(node["delay_ms"]))
    return duration_parse(str(node["duration"]))


def delay_amount_unit(node: dict[str, Any]) -> tuple[int | None, str]:
    """A delay as (amount, unit) in the largest unit that divides it, e.g. 900 s -> (15, "m")."""
    try:
        wait = delay_of(node)
    except (ValueError, TypeError, KeyError):
        return None, "m"
    milliseconds = round(wait / timedelta(milliseconds=1))
    if milliseconds % 1000:
        return milliseconds, "ms"
    seconds = milliseconds // 1000
    for unit, size in _UNIT_SECONDS.items():
        if seconds % size == 0 and (seconds or unit == "s"):
            return seconds // size, unit
    return seconds, "s"


class DelayNode(TimingType):
    name = "delay"
    optional = ("delay_ms", "duration", "until")
    templates = ("until",)
    field_schemas: ClassVar[dict[str, dict[str, Any]]] = {
        "delay_ms": {"type": "integer", "minimum": 0},
        "duration": {"type": "string", "example": "15m"},
        "until": {"type": "string", "description": "a time with offset (ISO-8601), a template"},
    }
    form_groups = (("delay_amount", "delay_unit"), ("until",))
    form_field_of: ClassVar[dict[str, str]] = {
        "delay_ms": "delay_amount",
        "duration": "delay_amount",
    }

    def problems(self, node: dict[str, Any]) -> list[Problem]:
        delay_ms, duration = node.get("delay_ms"), node.get("duration")
        given = [n for n in ("delay_ms", "duration", "until") if node.get(n) not in (None, "")]
        if not given:
            return [("delay_ms", "delay_ms, duration or until is required")]
        if len(given) > 1:
            return [(given[1], f"give one of {' or '.join(given)}, not both")]
        if given == ["until"]:
            return []  # a template (checked as one), rendered and parsed at run time
        if delay_ms is not None:
            if isinstance(delay_ms, bool) or not isinstance(delay_ms, int) or delay_ms < 0:
                return [("delay_ms", "must be a non-negative integer")]
            if delay_ms > MAX_DELAY / timedelta(milliseconds=1):  # before timedelta overflows
                return [("delay_ms", "must be at most 365 days")]
            delay = timedelta(milliseconds=delay_ms)
        else:
            try:
                delay = duration_parse(str(duration))
            except ValueError as exc:
                return [("duration", str(exc))]
        return [("delay_ms", "must be at most 365 days")] if delay > MAX_DELAY else []

    def wait(self, node: dict[str, Any], context: dict[str, Any], now: datetime) -> Wait:
        if not node.get("until"):
            wait = delay_of(node)
            return Wait(now + wait, {"delay_ms": milliseconds(wait)})
        with render_budget():
            spelled = self.field_render(node, "until", context).strip()
        try:
            until = until_parse(spelled)
        except ValueError as exc:
            raise value_error(node, "until", exc) from exc
        if until - now > MAX_DELAY:
            raise value_error(node, "until", ValueError(f"{spelled!r} is more than 365 days away"))
        resume_at = max(now, until)
        output = {"until": until.isoformat(), "delay_ms": milliseconds(resume_at - now)}
        return Wait(resume_at, output)

    def spelled(self, node: dict[str, Any]) -> str:
        return "" if node.get("until") else delay_spelled(node)

    def decided(self, node: dict[str, Any], wait: Wait, now: datetime) -> StepDecision:
        rule = "until" if node.get("until") else "delay"
        evidence = {"node": node["id"], **wait.output, "resumes_at": wait.resume_at.isoformat()}
        asked = wait.output["until"] if node.get("until") else delay_spelled(node)
        if wait.resume_at <= now:
            reason = f"Delay {node['id']!r} ({asked}) went on at once"
            return StepDecision(PASSED, reason, rule, evidence)
        reason = f"Held by delay {node['id']!r} ({asked}) until {moment(wait.resume_at)}"
        return StepDecision(DEFERRED, reason, rule, evidence)

    def summary(self, node: dict[str, Any]) -> str:
        spelled = delay_spelled(node) or "?"
        return f"delay · {spelled}" if node.get("until") else f"delay · wait {spelled}"

    def form_fields(self) -> dict[str, forms.Field]:
        from django import forms

        return {
            "delay_amount": forms.IntegerField(required=False, min_value=0, label="Wait"),
            "delay_unit": forms.ChoiceField(
                choices=DELAY_UNITS, initial="m", required=False, label="Unit"
            ),
            "until": forms.CharField(
                required=False,
                label="Or until",
                widget=forms.TextInput(
                    attrs={"size": 30, "placeholder": "{{ payload.remind_at }}"}
                ),
                help_text="instead of a wait: a time with offset (ISO-8601), e.g. from the payload",
            ),
        }

    def form_node(
        self, data: dict[str, Any], node: dict[str, Any], original: dict[str, Any] | None
    ) -> dict[str, Any]:
        """A wait as amount and unit; an unchanged one keeps its author's spelling."""
        if (data.get("until") or "").strip():
            node["until"] = data["until"].strip()
            return node
        amount, unit = data.get("delay_amount"), data.get("delay_unit") or "m"
        if amount is None:
            return node  # the validator says a delay needs a wait, on this row
        if (
            original
            and original.get("type") == self.name
            and delay_amount_unit(original)
            == (
                amount,
                unit,
            )
        ):
            node.update({k: original[k] for k in ("delay_ms", "duration") if k in original})
        else:
            node["duration"] = f"{amount}{unit}"
        return node

    def form_initial(self, node: dict[str, Any]) -> dict[str, Any]:
        amount, unit = delay_amount_unit(node)
        return {"until": node.get("until", ""), "delay_amount": amount, "delay_unit": unit}
