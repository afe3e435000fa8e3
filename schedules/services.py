"""Writing schedules (docs/guide/schedules.md): `schedule_put` checks a whole schedule and stores
it with its firing state, `schedule_delete` removes one. Every problem is a ScheduleRejected
naming its field (the API's 400)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction

from common.durations import duration_parse
from common.leased_work import nudge_schedule
from recipients.models import Topic
from recipients.validation import key_problem
from schedules.firing import fixed_zone, schedule_rule
from schedules.models import ID_MAX_LENGTH, RECIPIENT_ZONE, Schedule
from schedules.rules import (
    RuleProblem,
    earliest_instant,
    first_local,
    instant_of,
    local_of,
    local_parse,
    local_text,
    rule_parse,
    zone_checked,
)
from schedules.work import ScheduleNudge, schedules_enqueue_on_commit
from triggers.services import TriggerRejected, TriggerRequest, trigger_request_checked
from workflows.models import Workflow

_ID = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._:-]{{0,{ID_MAX_LENGTH - 1}}}")
# What a change of these fields does: the firing starts again from the next occurrence.
FIRING_FIELDS = (
    "workflow_key",
    "recipients",
    "topic_key",
    "repeat",
    "timezone",
    "starts_at",
    "ends_at",
)
CATCH_UP_MAX = timedelta(days=7)


class ScheduleRejected(Exception):
    """A schedule refused; `field` names the culprit (a path such as `recipients[2]`)."""

    def __init__(self, field: str, message: str, *, status_code: int = 400) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.status_code = status_code


@dataclass(frozen=True)
class ScheduleRequest:
    """A schedule as PUT /api/schedules/<id>/ takes it."""

    id: str
    workflow: str
    repeat: str
    recipients: list[str] | None = None
    topic: str | None = None
    timezone: str = RECIPIENT_ZONE
    payload: Any = field(default_factory=dict)
    starts_at: str | None = None
    ends_at: str | None = None
    tenant: str = ""
    active: bool = True
    catch_up: str = "1h"


def db_now() -> datetime:
    """The database's clock (docs/design/rules.md, rule 15)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement_timestamp()")
        return cursor.fetchone()[0]


def schedule_put(
    request: ScheduleRequest, *, actor: str = "", api_key_id: int | None = None
) -> tuple[Schedule, bool]:
    """Create or replace the schedule `request.id`: (schedule, created). Its firing starts again
    from the next occurrence when its rule, zone, audience, workflow or dates change, or when it
    is resumed; an occurrence under way otherwise goes on. `api_key_id` is the API key storing
    it, whose `trigger` rate its topic's occurrences are charged to from now on
    (schedules/admission.py); None keeps the key it had (the admin's pause and resume). Waits
    for a step under way (the row's lock). Raises ScheduleRejected (400) naming the field."""
    kept_start = Schedule.objects.filter(pk=request.id).values_list("starts_at", flat=True).first()
    values = _checked(request, kept_start=kept_start)
    if api_key_id is not None:
        values["api_key_id"] = api_key_id
    now = db_now()
    try:
        schedule, created = _stored(request.id, values, now, actor)
    except IntegrityError:
        # A concurrent PUT created the id first (as get_or_create meets it): replace that one.
        schedule, created = _stored(request.id, values, now, actor)
    schedule.refresh_from_db()
    return schedule, created


def _stored(
    schedule_id: str, values: dict[str, Any], now: datetime, actor: str
) -> tuple[Schedule, bool]:
    with transaction.atomic():
        existing = Schedule.objects.select_for_update().filter(pk=schedule_id).first()
        restart = existing is None or (
            any(getattr(existing, name) != values[name] for name in FIRING_FIELDS)
            or (values["active"] and not existing.active)
        )
        schedule = existing or Schedule(pk=schedule_id, created_by=actor)
        for name, value in values.items():
            setattr(schedule, name, value)
        if restart:
            _firing_restart(schedule, now)
        schedule.updated_at = now
        schedule.save(force_insert=existing is None)
        if restart and schedule.active and schedule.next_local:
            _nudge_if_soon(schedule, now)
    return schedule, existing is None


def schedule_delete(*, schedule_id: str) -> bool:
    """Delete the schedule and its record of occurrences (a step under way is waited for; its
    runs stay): whether there was one."""
    deleted, _ = Schedule.objects.filter(pk=schedule_id).delete()
    return bool(deleted)


def _firing_restart(schedule: Schedule, now: datetime) -> None:
    """From the first occurrence at or after `now`: nothing before it fires."""
    rule = schedule_rule(schedule.repeat, schedule.starts_at)
    zone = fixed_zone(schedule)
    ends = local_of(schedule.ends_at) if schedule.ends_at else None
    local = first_local(rule, zone=zone, since=now, ends=ends)
    schedule.fires_from = now
    schedule.next_local = local_text(local) if local else ""
    schedule.zones = None
    schedule.cursor = 0
    schedule.zone_runs = 0
    schedule.charged = 0
    schedule.lease_until = None
    schedule.leased_by = ""
    schedule.nudged_at = None
    if local is not None:
        schedule.available_at = (
            instant_of(local, zone) if zone else max(now, earliest_instant(local))
        )


def _nudge_if_soon(schedule: Schedule, now: datetime) -> None:
    nudged, countdown = nudge_schedule((schedule.available_at - now).total_seconds())
    if not nudged:
        return  # the sweep, which looks one interval ahead, nudges it in time
    queue = (
        Workflow.objects.filter(key=schedule.workflow_key).values_list("queue", flat=True).first()
    )
    schedule.nudged_at = now
    schedules_enqueue_on_commit(
        [ScheduleNudge(schedule.pk, queue or settings.CELERY_TASK_DEFAULT_QUEUE, countdown)]
    )


def _checked(request: ScheduleRequest, *, kept_start: str | None) -> dict[str, Any]:
    """The model's fields of a valid request; ScheduleRejected naming the first problem. Without
    starts_at, a schedule replaced keeps its own (`kept_start`), a new one starts now."""
    if not _ID.fullmatch(request.id):
        raise ScheduleRejected(
            "id",
            f"a schedule id is 1 to {ID_MAX_LENGTH} letters, digits and . _ : - (starting with "
            "a letter or digit)",
        )
    if not Workflow.objects.filter(key=request.workflow).exists():
        raise ScheduleRejected("workflow", f"workflow {request.workflow!r} does not exist")
    recipients, topic = _audience_checked(request)
    zone = None
    if request.timezone != RECIPIENT_ZONE:
        zone = _or_rejected("timezone", lambda: zone_checked(request.timezone))
    starts = (
        _or_rejected("starts_at", lambda: local_parse(request.starts_at or "", zone=zone))
        if request.starts_at
        else (local_of(kept_start) if kept_start else _default_start(zone))
    )
    ends = (
        _or_rejected("ends_at", lambda: local_parse(request.ends_at or "", zone=zone))
        if request.ends_at
        else None
    )
    if ends is not None and ends < starts:
        raise ScheduleRejected("ends_at", "ends_at is before starts_at")
    _or_rejected(
        "repeat",
        lambda: rule_parse(
            request.repeat,
            start=starts,
            min_interval=settings.NOTIFLOW_SCHEDULE_MIN_INTERVAL_SECONDS,
        ),
    )
    catch_up = _catch_up_checked(request.catch_up)
    try:
        trigger_request_checked(
            TriggerRequest(
                workflow_key=request.workflow,
                idempotency_key="schedule",
                payload=request.payload,
                tenant=request.tenant,
            )
        )
    except TriggerRejected as exc:
        raise ScheduleRejected(exc.field, exc.message) from None
    return {
        "workflow_key": request.workflow,
        "recipients": recipients,
        "topic_key": topic,
        "repeat": request.repeat.strip(),
        "timezone": request.timezone,
        "payload": request.payload,
        "starts_at": local_text(starts),
        "ends_at": local_text(ends) if ends else "",
        "tenant": request.tenant,
        "active": request.active,
        "catch_up_seconds": catch_up,
    }


def _audience_checked(request: ScheduleRequest) -> tuple[list[str] | None, str]:
    if (request.recipients is None) == (request.topic is None):
        raise ScheduleRejected("recipients", "give either recipients (a list of ids) or topic")
    if request.topic is not None:
        if not Topic.objects.filter(key=request.topic).exists():
            raise ScheduleRejected("topic", f"topic {request.topic!r} does not exist")
        return None, request.topic
    recipients = request.recipients or []
    limit = settings.NOTIFLOW_SCHEDULE_MAX_RECIPIENTS
    if not 1 <= len(recipients) <= limit:
        raise ScheduleRejected(
            "recipients",
            f"recipients lists 1 to {limit} ids (NOTIFLOW_SCHEDULE_MAX_RECIPIENTS); a bigger "
            "audience is a topic",
        )
    for index, key in enumerate(recipients):
        if problem := key_problem(key):
            raise ScheduleRejected(f"recipients[{index}]", f"the id {problem}")
    return list(dict.fromkeys(recipients)), ""


def _catch_up_checked(text: str) -> float:
    try:
        catch_up = duration_parse(text)
    except ValueError as exc:
        raise ScheduleRejected("catch_up", str(exc)) from None
    if catch_up > CATCH_UP_MAX:
        raise ScheduleRejected("catch_up", f"catch_up is at most {CATCH_UP_MAX.days} days")
    return catch_up.total_seconds()


def _default_start(zone: Any) -> datetime:
    """When the schedule is created: on its zone's wall, or (each recipient's own) on the
    westernmost wall there is, so that the next occurrence in every zone is on or after it."""
    now = db_now()
    if zone is not None:
        return now.astimezone(zone).replace(tzinfo=None, second=0, microsecond=0)
    return (now.astimezone(UTC).replace(tzinfo=None) - timedelta(hours=12)).replace(
        second=0, microsecond=0
    )


def _or_rejected(field_name: str, check: Any) -> Any:
    try:
        return check()
    except RuleProblem as exc:
        raise ScheduleRejected(field_name, str(exc)) from None
