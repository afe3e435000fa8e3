"""Reading schedules (docs/guide/schedules.md): lists by workflow and recipient, and the next
occurrences a GET shows."""

from __future__ import annotations

from datetime import datetime
from itertools import islice
from typing import Any

from django.conf import settings
from django.db.models import QuerySet

from recipients.models import Recipient, TopicSubscription
from schedules.firing import fixed_zone, schedule_rule, utc_text
from schedules.models import Schedule
from schedules.rules import (
    RuleProblem,
    first_local,
    instant_of,
    local_of,
    local_text,
    occurrences,
    zone_checked,
)

PREVIEW_OCCURRENCES = 5
PREVIEW_RECIPIENTS = 3


def schedules_listed(
    *, workflow: str | None = None, recipient: str | None = None
) -> QuerySet[Schedule]:
    """Schedules by id, of a workflow, and listing a recipient among `recipients` (a topic's
    audience is the topic's business)."""
    rows = Schedule.objects.order_by("id")
    if workflow is not None:
        rows = rows.filter(workflow_key=workflow)
    if recipient is not None:
        rows = rows.filter(recipients__contains=[recipient])
    return rows


def schedule_preview(schedule: Schedule, *, now: datetime, with_recipients: bool) -> dict[str, Any]:
    """The next occurrences from `now` (or the schedule's `fires_from`, when later): the rule's
    local times, their instants in a fixed zone, and for a schedule in each recipient's zone,
    with `with_recipients`, the first few recipients' own (instants and local times with their
    offsets)."""
    rule = schedule_rule(schedule.repeat, schedule.starts_at)
    zone = fixed_zone(schedule)
    ends = local_of(schedule.ends_at) if schedule.ends_at else None
    since = max(now, schedule.fires_from)
    start = first_local(rule, zone=zone, since=since, ends=ends)
    locals_ = (
        []
        if start is None
        else list(islice(occurrences(rule, after=start, ends=ends), PREVIEW_OCCURRENCES))
    )
    preview: dict[str, Any] = {
        "local": [local_text(local) for local in locals_],
        "utc": None if zone is None else [utc_text(instant_of(local, zone)) for local in locals_],
        "recipients": None,
    }
    if zone is None and with_recipients:
        preview["recipients"] = [
            _recipient_preview(key, name, rule=rule, since=since, ends=ends)
            for key, name in _first_recipients(schedule)
        ]
    return preview


def _first_recipients(schedule: Schedule) -> list[tuple[str, str]]:
    """(id, zone) of the audience's first few."""
    if schedule.topic_key:
        keys = list(
            TopicSubscription.objects.filter(topic_id=schedule.topic_key)
            .order_by("id")
            .values_list("recipient_id", flat=True)[:PREVIEW_RECIPIENTS]
        )
    else:
        keys = list(schedule.recipients or [])[:PREVIEW_RECIPIENTS]
    zones = dict(Recipient.objects.filter(key__in=keys).values_list("key", "timezone"))
    return [(key, zones.get(key) or settings.NOTIFLOW_DEFAULT_TIMEZONE) for key in keys]


def _recipient_preview(
    key: str, name: str, *, rule: Any, since: datetime, ends: datetime | None
) -> dict[str, Any]:
    try:
        zone = zone_checked(name)
    except RuleProblem:
        return {"recipient": key, "timezone": name, "utc": [], "local": []}
    start = first_local(rule, zone=zone, since=since, ends=ends)
    locals_ = (
        []
        if start is None
        else list(islice(occurrences(rule, after=start, ends=ends), PREVIEW_OCCURRENCES))
    )
    instants = [instant_of(local, zone) for local in locals_]
    return {
        "recipient": key,
        "timezone": name,
        "utc": [utc_text(at) for at in instants],
        "local": [at.astimezone(zone).isoformat() for at in instants],
    }
