"""Driving schedules at a time of the test's choosing: a schedule placed as if stored at an
instant, and its steps taken at a given `now` (the claim and the lock as the task's, the clock
the test's: schedules.firing.schedule_step)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.db.models.functions import Now

from common.leases import lease_token
from recipients.models import Recipient, Topic, TopicSubscription
from schedules.firing import StepOutcome, fixed_zone, schedule_rule, schedule_step
from schedules.models import Schedule
from schedules.rules import first_local, local_of, local_text
from schedules.work import schedule_claim
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node


def at(text: str) -> datetime:
    """An instant written in UTC (`2026-03-29T01:30`)."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def a_workflow(**fields):
    return WorkflowFactory(definition=chain(delay_node("wait", duration="1h")), **fields)


def people(zones: dict[str, str]) -> list[str]:
    """Recipients stored with these zones ({key prefix: zone, '' for none}); their keys."""
    keys = [unique(prefix) for prefix in zones]
    Recipient.objects.bulk_create(
        [Recipient(key=key, timezone=zone) for key, zone in zip(keys, zones.values(), strict=True)]
    )
    return keys


def topic_of(size: int) -> tuple[str, list[str]]:
    topic = Topic.objects.create(key=unique("topic"))
    keys = [f"{topic.key}-{n:06d}" for n in range(size)]
    Recipient.objects.bulk_create([Recipient(key=key) for key in keys], batch_size=5000)
    TopicSubscription.objects.bulk_create(
        [TopicSubscription(topic=topic, recipient_id=key) for key in keys], batch_size=5000
    )
    return topic.key, keys


def place(schedule_id: str, since: datetime) -> Schedule:
    """The schedule as if stored (or resumed) at `since`: nothing before it fires."""
    schedule = Schedule.objects.get(pk=schedule_id)
    rule = schedule_rule(schedule.repeat, schedule.starts_at)
    ends = local_of(schedule.ends_at) if schedule.ends_at else None
    local = first_local(rule, zone=fixed_zone(schedule), since=since, ends=ends)
    Schedule.objects.filter(pk=schedule_id).update(
        fires_from=since,
        next_local=local_text(local) if local else "",
        zones=None,
        cursor=0,
        zone_runs=0,
        charged=0,
    )
    return Schedule.objects.get(pk=schedule_id)


def step_at(schedule_id: str, now: datetime, *, worker: str = "w") -> StepOutcome | None:
    """One step as the task takes it, at `now`; None when the claim finds nothing to do."""
    Schedule.objects.filter(pk=schedule_id, lease_until__isnull=True).update(
        available_at=Now() - timedelta(seconds=1)
    )
    token = lease_token(worker)
    if schedule_claim(schedule_id, token=token) is None:
        return None
    with transaction.atomic():
        return schedule_step(schedule_id, token=token, now=now)


def fire_at(schedule_id: str, now: datetime, *, steps: int = 1000) -> list[int]:
    """Steps at `now` until the schedule waits for a later time (or has no more occurrences):
    the runs each step that fired a chunk created (a step that only waits is not one)."""
    created: list[int] = []
    for _ in range(steps):
        outcome = step_at(schedule_id, now)
        if outcome is None or outcome.wait is None or outcome.wait > 0:
            return created
        created.append(outcome.created)
    raise AssertionError(f"still due after {steps} steps")
