"""A schedule's occurrences become runs (schedules/firing.py), driven at instants of the test's
choosing (tests/schedules/support.py): one run per recipient per occurrence at 9:00 on each
person's wall, DST in two zones, exactly once when a chunk is done again, catch-up against skip,
pause and rule changes from the next occurrence, and a 10,000-recipient topic."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.db.models.functions import Now
from django.test import override_settings

from common import broker
from common.leased_work import work_sweep
from schedules.firing import occurrence_run_key
from schedules.models import Schedule, ScheduleOccurrence
from schedules.services import ScheduleRequest, schedule_put
from schedules.work import SCHEDULE_FIRE_TASK, SCHEDULES, schedule_claim
from tests.conftest import unique
from tests.schedules.support import a_workflow, at, fire_at, people, place, step_at, topic_of
from triggers.fanout_work import FANOUT_CHUNK_PRIORITY
from triggers.models import TriggerInstance

pytestmark = pytest.mark.django_db


def keys_of(workflow) -> set[str]:
    return set(
        TriggerInstance.objects.filter(workflow=workflow).values_list("idempotency_key", flat=True)
    )


def a_schedule(workflow, **fields) -> Schedule:
    """A schedule whose rule starts at the beginning of 2026 (the tests' instants are in it)."""
    fields.setdefault("starts_at", "2026-01-01T00:00:00")
    request = ScheduleRequest(id=unique("s"), workflow=workflow.key, **fields)
    return schedule_put(request)[0]


def test_each_recipient_runs_at_9_on_their_own_wall():
    workflow = a_workflow()
    paris, new_york, nowhere = people(
        {"paris": "Europe/Paris", "ny": "America/New_York", "utc": ""}
    )
    schedule = a_schedule(
        workflow,
        recipients=[paris, new_york, nowhere],
        repeat="FREQ=DAILY;BYHOUR=9;BYMINUTE=0",
        payload={"kind": "daily"},
    )
    place(schedule.pk, at("2026-12-07T00:00"))

    assert fire_at(schedule.pk, at("2026-12-07T07:59")) == []  # the zones read, none due
    assert fire_at(schedule.pk, at("2026-12-07T08:00")) == [1]  # 9:00 in Paris
    assert fire_at(schedule.pk, at("2026-12-07T09:00")) == [1]  # 9:00 UTC (no zone: default)
    assert fire_at(schedule.pk, at("2026-12-07T14:00")) == [1]  # 9:00 in New York

    assert keys_of(workflow) == {
        occurrence_run_key(schedule.pk, paris, at("2026-12-07T08:00")),
        occurrence_run_key(schedule.pk, nowhere, at("2026-12-07T09:00")),
        occurrence_run_key(schedule.pk, new_york, at("2026-12-07T14:00")),
    }
    runs = TriggerInstance.objects.filter(workflow=workflow)
    assert {run.recipient for run in runs} == {paris, new_york, nowhere}
    assert all(run.payload == {"kind": "daily"} for run in runs)
    shown = Schedule.objects.get(pk=schedule.pk)
    assert (shown.next_local, shown.runs_created) == ("2026-12-08T09:00:00", 3)
    assert list(
        ScheduleOccurrence.objects.filter(schedule=schedule)
        .order_by("occurs_at")
        .values_list("zone", "status", "runs")
    ) == [("Europe/Paris", "fired", 1), ("UTC", "fired", 1), ("America/New_York", "fired", 1)]
    assert occurrence_run_key(schedule.pk, paris, at("2026-12-07T08:00")) == (
        f"schedule:{schedule.pk}:{paris}:2026-12-07T08:00:00Z"
    )


@pytest.mark.parametrize(
    ("zone", "spring", "fall"),
    [
        # Paris: 2026-03-29 02:30 does not exist (03:30 CEST = 01:30Z); 2026-10-25 02:30
        # happens twice (the first, CEST, = 00:30Z).
        ("Europe/Paris", ("2026-03-29", "2026-03-29T01:30"), ("2026-10-25", "2026-10-25T00:30")),
        # New York: 2026-03-08 02:30 does not exist (03:30 EDT = 07:30Z); 2026-11-01 02:30
        # happens once, 01:30 twice: a rule at 01:30 fires at the first (EDT, 05:30Z).
        (
            "America/New_York",
            ("2026-03-08", "2026-03-08T07:30"),
            ("2026-11-01", "2026-11-01T05:30"),
        ),
    ],
    ids=["Europe/Paris", "America/New_York"],
)
def test_dst_moves_a_missing_time_forward_and_fires_a_doubled_one_once(zone, spring, fall):
    workflow = a_workflow()
    (person,) = people({"p": zone})
    fall_hour = 2 if zone == "Europe/Paris" else 1
    for day, instant, hour in ((*spring, 2), (*fall, fall_hour)):
        schedule = a_schedule(
            workflow, recipients=[person], repeat=f"FREQ=DAILY;BYHOUR={hour};BYMINUTE=30"
        )
        place(schedule.pk, at(f"{day}T00:00") - timedelta(hours=14))
        before = at(instant) - timedelta(minutes=1)

        assert fire_at(schedule.pk, before) == []
        assert fire_at(schedule.pk, at(instant)) == [1]
        # Later that day, and through the second pass of a doubled hour: nothing more.
        assert fire_at(schedule.pk, at(instant) + timedelta(hours=2)) == []
        assert keys_of(workflow) >= {occurrence_run_key(schedule.pk, person, at(instant))}
        made = TriggerInstance.objects.filter(
            workflow=workflow, idempotency_key__startswith=f"schedule:{schedule.pk}:"
        )
        assert made.count() == 1
        assert Schedule.objects.get(pk=schedule.pk).next_local.startswith(
            (at(instant) + timedelta(days=1)).strftime("%Y-%m-%d")
        )


@override_settings(NOTIFLOW_FANOUT_CHUNK_SIZE=3)
def test_a_chunk_done_again_or_a_step_while_another_holds_the_lease_creates_no_run_twice():
    workflow = a_workflow()
    topic, keys = topic_of(7)
    schedule = a_schedule(workflow, topic=topic, repeat="FREQ=DAILY;BYHOUR=9", timezone="UTC")
    place(schedule.pk, at("2026-12-07T00:00"))
    nine = at("2026-12-07T09:00")

    first = step_at(schedule.pk, nine)
    assert first is not None and first.created == 3
    # A copy of the task while another worker holds the schedule: skipped, not waited for.
    assert schedule_claim(schedule.pk, token="other/1") is not None
    assert step_at(schedule.pk, nine) is None
    # That worker died: its lease expired. And as if the cursor had been lost after the runs
    # were made (a step taken again from an older state):
    Schedule.objects.filter(pk=schedule.pk).update(
        lease_until=Now() - timedelta(seconds=1), cursor=0, leased_by=""
    )
    assert fire_at(schedule.pk, nine) == [0, 3, 1]

    assert keys_of(workflow) == {occurrence_run_key(schedule.pk, key, nine) for key in keys}
    assert Schedule.objects.get(pk=schedule.pk).runs_created == 7


def test_an_occurrence_missed_within_catch_up_fires_once_and_an_older_one_is_skipped_recorded():
    workflow = a_workflow()
    (person,) = people({"p": "UTC"})
    schedule = a_schedule(
        workflow, recipients=[person], repeat="FREQ=DAILY;BYHOUR=9", catch_up="1h", timezone="UTC"
    )
    place(schedule.pk, at("2026-12-07T00:00"))

    # Down from 08:00 on the 7th to 09:30 on the 8th: the 7th's is 24 h late, the 8th's 30 min.
    assert fire_at(schedule.pk, at("2026-12-08T09:30")) == [1]
    assert fire_at(schedule.pk, at("2026-12-08T09:30")) == []  # once

    assert keys_of(workflow) == {occurrence_run_key(schedule.pk, person, at("2026-12-08T09:00"))}
    records = ScheduleOccurrence.objects.filter(schedule=schedule).order_by("occurs_at")
    assert [(r.local, r.status, r.runs) for r in records] == [
        ("2026-12-07T09:00:00", "skipped", 0),
        ("2026-12-08T09:00:00", "fired", 1),
    ]
    assert "more than catch_up (1:00:00)" in records[0].reason


def test_pausing_stops_the_next_occurrence_and_resuming_takes_effect_from_the_one_after():
    workflow = a_workflow()
    (person,) = people({"p": ""})
    fields = {"recipients": [person], "repeat": "FREQ=MINUTELY;INTERVAL=5", "timezone": "UTC"}
    schedule = a_schedule(workflow, **fields)

    paused, _ = schedule_put(
        ScheduleRequest(id=schedule.pk, workflow=workflow.key, active=False, **fields)
    )
    Schedule.objects.filter(pk=schedule.pk).update(available_at=Now() - timedelta(minutes=1))
    assert step_at(schedule.pk, paused.fires_from + timedelta(hours=1)) is None  # not claimed
    assert all(
        nudge.schedule_id != schedule.pk for batch in work_sweep(SCHEDULES) for nudge in batch
    )

    resumed, _ = schedule_put(ScheduleRequest(id=schedule.pk, workflow=workflow.key, **fields))
    assert resumed.fires_from > paused.fires_from
    # The first occurrence is the first after the resumption, nothing from the pause.
    assert resumed.next_local > paused.fires_from.strftime("%Y-%m-%dT%H:%M:%S")
    assert keys_of(workflow) == set()


def test_a_rule_change_takes_effect_from_the_next_occurrence():
    workflow = a_workflow()
    (person,) = people({"p": ""})
    fields = {"recipients": [person], "timezone": "UTC"}
    schedule = a_schedule(workflow, repeat="FREQ=DAILY;BYHOUR=9", **fields)
    place(schedule.pk, at("2026-12-07T00:00"))
    assert fire_at(schedule.pk, at("2026-12-07T09:00")) == [1]

    _, created = schedule_put(
        ScheduleRequest(
            id=schedule.pk, workflow=workflow.key, repeat="FREQ=DAILY;BYHOUR=18", **fields
        )
    )
    assert not created
    place(schedule.pk, at("2026-12-07T10:00"))  # as if changed at 10:00
    assert fire_at(schedule.pk, at("2026-12-07T18:00")) == [1]

    assert keys_of(workflow) == {
        occurrence_run_key(schedule.pk, person, at("2026-12-07T09:00")),
        occurrence_run_key(schedule.pk, person, at("2026-12-07T18:00")),
    }


def test_a_payload_change_keeps_the_occurrence_under_way():
    workflow = a_workflow()
    (person,) = people({"p": ""})
    fields = {"recipients": [person], "repeat": "FREQ=DAILY;BYHOUR=9", "timezone": "UTC"}
    schedule = a_schedule(workflow, **fields)
    place(schedule.pk, at("2026-12-07T00:00"))

    schedule_put(ScheduleRequest(id=schedule.pk, workflow=workflow.key, payload={"v": 2}, **fields))

    assert Schedule.objects.get(pk=schedule.pk).fires_from == at("2026-12-07T00:00")


def test_the_sweep_nudges_a_due_schedule_on_its_workflows_queue_ahead_of_runs(
    monkeypatch, django_capture_on_commit_callbacks
):
    workflow = a_workflow(queue="billing", priority=7)
    (person,) = people({"p": ""})
    schedule = a_schedule(workflow, recipients=[person], repeat="FREQ=DAILY", timezone="UTC")
    Schedule.objects.filter(pk=schedule.pk).update(
        available_at=Now() - timedelta(seconds=1), nudged_at=None
    )
    calls: list[tuple[str, list]] = []
    monkeypatch.setattr(
        broker, "tasks_publish", lambda name, c, **options: calls.append((name, list(c)))
    )

    with django_capture_on_commit_callbacks(execute=True):
        nudged = [nudge for batch in work_sweep(SCHEDULES) for nudge in batch]

    # Its task goes ahead of every run's nudge, as a fan-out's chunk does (docs/design/recipients.md,
    # "Chunks before runs"); the runs it makes keep the workflow's 7.
    assert [(n.schedule_id, n.queue, n.priority) for n in nudged] == [
        (schedule.pk, "billing", FANOUT_CHUNK_PRIORITY)
    ]
    assert [(name, [c.args for c in batch]) for name, batch in calls] == [
        (SCHEDULE_FIRE_TASK, [[schedule.pk]])
    ]
    assert [c.priority for _, batch in calls for c in batch] == [
        broker.broker_priority(FANOUT_CHUNK_PRIORITY, broker_url=settings.CELERY_BROKER_URL)
    ]
    assert [nudge for batch in work_sweep(SCHEDULES) for nudge in batch] == []  # nudged once


@pytest.mark.parametrize("size", [1_000, pytest.param(10_000, marks=pytest.mark.slow)])
def test_a_big_topic_fires_each_subscriber_exactly_once_in_chunks(size):
    workflow = a_workflow()
    topic, keys = topic_of(size)
    schedule = a_schedule(workflow, topic=topic, repeat="FREQ=DAILY;BYHOUR=9")
    place(schedule.pk, at("2026-12-07T00:00"))
    nine = at("2026-12-07T09:00")

    created = fire_at(schedule.pk, nine)

    assert sum(created) == size and len(created) == size // 1000 + 1
    assert TriggerInstance.objects.filter(workflow=workflow).count() == size
    assert keys_of(workflow) == {occurrence_run_key(schedule.pk, key, nine) for key in keys}
    # Done again from the start of the occurrence: nothing more.
    place(schedule.pk, at("2026-12-07T00:00"))
    assert sum(fire_at(schedule.pk, nine)) == 0


def test_a_schedules_runs_carry_its_tenant_and_an_unknown_one_is_refused():
    from schedules.services import ScheduleRejected
    from tenants.services import tenant_put

    workflow = a_workflow()
    (ada,) = people({"ada": "UTC"})
    tenant = unique("acme")
    tenant_put(tenant_id=tenant, fields={"name": "Acme"}, actor="tests")
    schedule = a_schedule(
        workflow, recipients=[ada], repeat="FREQ=DAILY;BYHOUR=9", timezone="UTC", tenant=tenant
    )
    place(schedule.pk, at("2026-12-07T00:00"))
    assert fire_at(schedule.pk, at("2026-12-07T09:00")) == [1]
    assert list(
        TriggerInstance.objects.filter(workflow=workflow).values_list("tenant", flat=True)
    ) == [tenant]

    with pytest.raises(ScheduleRejected) as refused:
        a_schedule(workflow, recipients=[ada], repeat="FREQ=DAILY", tenant="no-such-tenant")
    assert refused.value.field == "tenant"
