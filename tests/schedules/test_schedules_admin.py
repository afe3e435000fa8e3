"""Schedules in the admin (schedules/admin.py): the list, a schedule's page with its next
occurrences and its record, and pause and resume as actions through schedule_put."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from common.durations import duration_parse, duration_text
from schedules.models import OccurrenceStatus, Schedule, ScheduleOccurrence
from schedules.services import ScheduleRequest, schedule_put
from tests.schedules.support import a_workflow, at, people

pytestmark = pytest.mark.django_db


@pytest.fixture
def schedule():
    (person,) = people({"ada": "Europe/Paris"})
    stored, _ = schedule_put(
        ScheduleRequest(
            id="admin-weekly",
            workflow=a_workflow().key,
            recipients=[person],
            repeat="FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0",
        )
    )
    ScheduleOccurrence.objects.create(
        schedule=stored,
        local="2026-12-07T09:00:00",
        zone="Europe/Paris",
        occurs_at=at("2026-12-07T08:00"),
        status=OccurrenceStatus.SKIPPED,
        reason="missed by 2:00:00, more than catch_up (1:00:00)",
    )
    return stored


def test_the_list_and_a_schedules_page_show_its_rule_next_occurrences_and_record(
    admin_client, schedule
):
    listed = admin_client.get(reverse("admin:schedules_schedule_changelist"))
    page = admin_client.get(reverse("admin:schedules_schedule_change", args=[schedule.pk]))

    assert listed.status_code == 200 and b"admin-weekly" in listed.content
    assert page.status_code == 200
    text = unescape(re.sub(r"<[^>]+>", "", page.content.decode()))  # what the page reads
    assert "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0" in text  # (it wraps between parts)
    assert re.search(r"\d{4}-\d\d-\d\d 09:00 \+01:00", text)  # the recipient's next Monday
    assert "each recipient's own" in text and "1h" in text  # the zone and catch-up in words
    assert "more than catch_up" in text


def test_pause_and_resume_actions_go_through_schedule_put(admin_client, schedule):
    changelist = reverse("admin:schedules_schedule_changelist")
    before = Schedule.objects.get(pk=schedule.pk).fires_from

    admin_client.post(changelist, {"action": "pause", "_selected_action": [schedule.pk]})
    assert not Schedule.objects.get(pk=schedule.pk).active
    admin_client.post(changelist, {"action": "resume", "_selected_action": [schedule.pk]})

    resumed = Schedule.objects.get(pk=schedule.pk)
    assert resumed.active and resumed.fires_from > before  # from the next occurrence


@pytest.mark.parametrize(
    ("seconds", "text"), [(3600, "1h"), (5400, "90m"), (45, "45s"), (0, "0s"), (172800, "2d")]
)
def test_a_catch_up_window_is_shown_as_it_is_written_and_reads_back(seconds, text):
    assert duration_text(seconds) == text
    assert duration_parse(text).total_seconds() == seconds
