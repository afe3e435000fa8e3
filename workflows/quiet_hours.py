"""A person's quiet hours (docs/quiet-hours.md): when, in their own time zone, they want no
message that is not urgent. The one home of their shape, of what "urgent" means and of the
decision a send inside them comes to; the send path (workers.services.send) holds the send with
it, the dry run (deliveries.explain) asks it the same, the profile's API and the hosted
preference page check a value with it. Pure: no database, no clock but the `now` passed in.

`{"start": "22:00", "end": "08:00", "days"?: ["mon", ...]}`: from `start` to `end` local time,
starting on each of `days` (every day when left out); an `end` before `start` runs past
midnight. A stored profile without quiet hours holds `{}`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings

from workflows.decisions import DEFERRED, StepDecision, moment
from workflows.timing import WEEKDAYS, clock_parse, quiet_hours_end, zone_parse

QUIET_HOURS_FIELDS = ("start", "end", "days")
RULE_QUIET_HOURS = "quiet_hours"  # the step log's rule for a send held by them


def quiet_hours_problems(value: Any) -> list[tuple[str, str]]:
    """What is wrong with a `quiet_hours` value, as (its field, the problem); [] when it is
    fine. None or {} (none) is fine."""
    if value is None or value == {}:
        return []
    if not isinstance(value, dict):
        return [("", 'must be an object such as {"start": "22:00", "end": "08:00"} or null')]
    found: list[tuple[str, str]] = [
        (name, f"unknown field {name!r}; known: {', '.join(QUIET_HOURS_FIELDS)}")
        for name in value
        if name not in QUIET_HOURS_FIELDS
    ]
    clocks = {}
    for name in ("start", "end"):
        if name not in value:
            found.append((name, "this field is required"))
            continue
        try:
            clocks[name] = clock_parse(value[name]) if isinstance(value[name], str) else None
        except ValueError as exc:
            found.append((name, str(exc)))
            continue
        if clocks[name] is None:
            found.append((name, "must be a time of day such as 22:00 (HH:MM, 24 hours)"))
    if len(clocks) == 2 and None not in clocks.values() and clocks["start"] == clocks["end"]:
        found.append(("end", "must differ from start (quiet hours of no time)"))
    days = value.get("days")
    if "days" in value and (
        not isinstance(days, list)
        or not days
        or any(day not in WEEKDAYS for day in days)
        or len(set(days)) != len(days)
    ):
        found.append(
            ("days", f"must be a non-empty list of distinct days from {', '.join(WEEKDAYS)}")
        )
    return found


def run_urgent(*, required: bool, priority: int) -> bool:
    """Whether a run passes through quiet hours: its workflow is `required`, or its priority is
    at least NOTIFLOW_QUIET_HOURS_BYPASS_PRIORITY."""
    return required or priority >= settings.NOTIFLOW_QUIET_HOURS_BYPASS_PRIORITY


@dataclass(frozen=True)
class QuietHold:
    """A send inside the person's quiet hours: held until `until` (UTC), as `decision` says."""

    until: datetime
    decision: StepDecision


def quiet_hours_hold(
    quiet: Any, *, timezone: str, now: datetime, who: str, label: str
) -> QuietHold | None:
    """The hold of a send at `now` for a person whose profile holds `quiet` (and `timezone`:
    theirs, else NOTIFLOW_DEFAULT_TIMEZONE), or None when `now` is outside their quiet hours (or
    they have none, or a value the profile's checks would refuse). `who` and `label` (the
    channel's) are how the reason names the person and the send."""
    if not isinstance(quiet, dict) or not quiet or quiet_hours_problems(quiet):
        return None
    name = timezone.strip() if isinstance(timezone, str) and timezone.strip() else ""
    name = name or settings.NOTIFLOW_DEFAULT_TIMEZONE
    try:
        zone = zone_parse(name)
    except ValueError:  # checked when stored; a zone the host no longer knows holds nothing
        return None
    days = list(quiet.get("days") or WEEKDAYS)
    ends = quiet_hours_end(
        now, zone=zone, days=days, start=clock_parse(quiet["start"]), end=clock_parse(quiet["end"])
    )
    if ends is None:
        return None
    local = ends.astimezone(zone)
    hours = f"{quiet['start']}-{quiet['end']} {_days(days)}, {name}"
    reason = f"{label} held: {who}'s quiet hours ({hours}) end at {moment(local)}"
    evidence = {
        "quiet_hours": {"start": quiet["start"], "end": quiet["end"], "days": days},
        "timezone": name,
        "until": local.isoformat(),
    }
    return QuietHold(ends, StepDecision(DEFERRED, reason, RULE_QUIET_HOURS, evidence))


def _days(days: list[str]) -> str:
    return "daily" if len(days) == len(WEEKDAYS) else ",".join(days)
