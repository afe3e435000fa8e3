"""The window node type: go on only between `start` and `end` (on `days`, in `timezone`)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from django.conf import settings

from workflows.decisions import DEFERRED, PASSED, StepDecision, moment
from workflows.nodes.base import Problem, value_error
from workflows.nodes.timing import TimingType, Wait, milliseconds
from workflows.templating import render_budget, template_has_markup
from workflows.timing import WEEKDAYS, clock_parse, window_opening, zone_parse

if TYPE_CHECKING:
    from django import forms


def window_days(node: dict[str, Any]) -> list[str]:
    """The days a (validated) window node is open on: every day unless it says."""
    return list(node.get("days") or WEEKDAYS)


class WindowNode(TimingType):
    name = "window"
    required = ("start", "end")
    optional = ("timezone", "days")
    templates = ("timezone",)
    reads_recipient = True  # no zone given: the recipient's
    field_schemas: ClassVar[dict[str, dict[str, Any]]] = {
        "start": {"type": "string", "example": "09:00"},
        "end": {"type": "string", "example": "18:00"},
        "days": {"type": "array", "items": {"type": "string", "enum": list(WEEKDAYS)}},
    }
    form_groups = (("timezone", "start", "end"), ("days",))

    def problems(self, node: dict[str, Any]) -> list[Problem]:
        found: list[Problem] = []
        clocks = {}
        for name in ("start", "end"):
            try:
                clocks[name] = clock_parse(str(node.get(name, "")))
            except ValueError as exc:
                if node.get(name) not in (None, ""):  # a missing one is reported as required
                    found.append((name, str(exc)))
        if len(clocks) == 2 and clocks["start"] == clocks["end"]:
            found.append(("end", "must differ from start (a window of no time)"))
        days = node.get("days")
        if days is not None and (
            not isinstance(days, list)
            or not days
            or any(day not in WEEKDAYS for day in days)
            or len(set(days)) != len(days)
        ):
            message = f"must be a non-empty list of distinct days from {', '.join(WEEKDAYS)}"
            found.append(("days", message))
        zone = node.get("timezone")
        if isinstance(zone, str) and zone.strip() and not template_has_markup(zone):
            try:  # a fixed zone is checked now; one from a template when it renders
                zone_parse(zone)
            except ValueError as exc:
                found.append(("timezone", str(exc)))
        return found

    def wait(self, node: dict[str, Any], context: dict[str, Any], now: datetime) -> Wait:
        with render_budget():
            given = node.get("timezone")
            name = self.field_render(node, "timezone", context).strip() if given else ""
        # No zone (or one rendering empty): the run's recipient's, else the default.
        name = name or _recipient_timezone(context) or settings.NOTIFLOW_DEFAULT_TIMEZONE
        try:
            zone = zone_parse(name)
        except ValueError as exc:
            raise value_error(node, "timezone", exc) from exc
        opens = window_opening(
            now,
            zone=zone,
            days=window_days(node),
            start=clock_parse(node["start"]),
            end=clock_parse(node["end"]),
        )
        if opens is None:
            return Wait(now, {"timezone": name, "open": True, "delay_ms": 0})
        local = opens.astimezone(zone).isoformat()
        output = {
            "timezone": name,
            "open": False,
            "opens_at": local,
            "delay_ms": milliseconds(opens - now),
        }
        return Wait(opens, output)

    def decided(self, node: dict[str, Any], wait: Wait, now: datetime) -> StepDecision:
        hours = (
            f"{node['start']}-{node['end']} {_days(node.get('days'))}, {wait.output['timezone']}"
        )
        evidence = {
            "node": node["id"],
            "start": node["start"],
            "end": node["end"],
            "days": window_days(node),
            **wait.output,
        }
        if wait.output["open"]:
            reason = f"Send window {node['id']!r} ({hours}) was open: went on at once"
            return StepDecision(PASSED, reason, "window", evidence)
        opens = moment(wait.output["opens_at"])
        reason = f"Held until send window {node['id']!r} ({hours}) opens at {opens}"
        return StepDecision(DEFERRED, reason, "window", evidence)

    def summary(self, node: dict[str, Any]) -> str:
        return f"window · {_days(node.get('days'))} {node.get('start')}-{node.get('end')}"

    def form_fields(self) -> dict[str, forms.Field]:
        from django import forms

        return {
            "timezone": forms.CharField(
                required=False,
                label="Time zone",
                widget=forms.TextInput(attrs={"size": 22, "placeholder": "{{ payload.tz }}"}),
                help_text="IANA name, e.g. Europe/Berlin, or a template; empty: the recipient's "
                "zone, else the default",
            ),
            "start": forms.CharField(
                required=False,
                label="Opens",
                widget=forms.TextInput(attrs={"size": 5, "placeholder": "09:00"}),
            ),
            "end": forms.CharField(
                required=False,
                label="Closes",
                widget=forms.TextInput(attrs={"size": 5, "placeholder": "18:00"}),
                help_text="before Opens: the window runs past midnight",
            ),
            "days": forms.MultipleChoiceField(
                required=False,
                choices=[(day, day.capitalize()) for day in WEEKDAYS],
                widget=forms.CheckboxSelectMultiple,
                help_text="none ticked: every day",
            ),
        }

    def form_node(
        self, data: dict[str, Any], node: dict[str, Any], original: dict[str, Any] | None
    ) -> dict[str, Any]:
        days = data.get("days") or []
        node = super().form_node({**data, "days": None}, node, original)
        if 0 < len(days) < len(WEEKDAYS):  # none or all seven ticked: every day, the default
            node["days"] = [day for day in WEEKDAYS if day in days]
        return node

    def form_initial(self, node: dict[str, Any]) -> dict[str, Any]:
        return {**super().form_initial(node), "days": node.get("days") or list(WEEKDAYS)}


def _recipient_timezone(context: dict[str, Any]) -> str:
    """The run's recipient's time zone (checked when the profile was stored), or ""."""
    recipient = context.get("recipient")
    zone = recipient.get("timezone") if isinstance(recipient, dict) else None
    return zone.strip() if isinstance(zone, str) else ""


def _days(days: Any) -> str:
    """A window's days, short: "daily", "mon-fri" for a run of days, else "mon,wed"."""
    if not isinstance(days, list) or not days or len(days) == len(WEEKDAYS):
        return "daily"
    index = [WEEKDAYS.index(d) for d in days if d in WEEKDAYS]
    if len(index) > 2 and index == list(range(index[0], index[0] + len(index))):
        return f"{days[0]}-{days[-1]}"
    return ",".join(str(d) for d in days)
