"""Quiet hours' time arithmetic and shape (workflows/quiet_hours.py, docs/quiet-hours.md): when a
stretch that holds `now` ends, overnight and on the days given, across daylight-saving changes in
two zones; which values a profile may hold; which runs pass through them."""

from __future__ import annotations

from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

import pytest

from workflows.decisions import DEFERRED
from workflows.quiet_hours import quiet_hours_hold, quiet_hours_problems, run_urgent
from workflows.timing import WEEKDAYS, quiet_hours_end

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
EVERY_DAY = list(WEEKDAYS)


def at(zone: ZoneInfo, text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=zone).astimezone(UTC)


def ends(now: datetime, zone=BERLIN, days=EVERY_DAY, start="22:00", end="08:00"):
    start_at, end_at = (time.fromisoformat(start), time.fromisoformat(end))
    return quiet_hours_end(now, zone=zone, days=days, start=start_at, end=end_at)


@pytest.mark.parametrize(
    ("local", "expected"),
    [
        ("2026-06-10 23:30", "2026-06-11 08:00"),  # late evening: ends the next morning
        ("2026-06-11 03:00", "2026-06-11 08:00"),  # after midnight: yesterday's stretch
        ("2026-06-10 22:00", "2026-06-11 08:00"),  # its start is inside
    ],
)
def test_an_overnight_stretch_holds_until_its_end_the_next_morning(local, expected):
    assert ends(at(BERLIN, local)) == at(BERLIN, expected)


@pytest.mark.parametrize("local", ["2026-06-10 08:00", "2026-06-10 12:00", "2026-06-10 21:59"])
def test_outside_the_stretch_nothing_is_held(local):
    assert ends(at(BERLIN, local)) is None


def test_a_stretch_belongs_to_the_day_it_starts():
    # Friday 22:00 to Saturday 08:00 is quiet; Saturday 23:00 is not (only friday is listed).
    friday_night = at(BERLIN, "2026-06-13 02:00")  # a Saturday morning, after Friday's start
    assert ends(friday_night, days=["fri"]) == at(BERLIN, "2026-06-13 08:00")
    assert ends(at(BERLIN, "2026-06-13 23:00"), days=["fri"]) is None
    assert ends(at(BERLIN, "2026-06-12 21:00"), days=["fri"]) is None


def test_a_daytime_stretch():
    assert ends(at(BERLIN, "2026-06-10 12:30"), start="12:00", end="14:00") == at(
        BERLIN, "2026-06-10 14:00"
    )


def test_spring_forward_in_berlin_shortens_the_night_as_the_clocks_do():
    # 2026-03-29 02:00 CET becomes 03:00 CEST: the stretch 22:00-08:00 is 9 hours long.
    now = at(BERLIN, "2026-03-29 01:30")
    end = ends(now)
    assert end == datetime(2026, 3, 29, 6, 0, tzinfo=UTC)  # 08:00 CEST
    assert (end - at(BERLIN, "2026-03-28 22:00")).total_seconds() == 9 * 3600


def test_an_end_inside_the_spring_gap_is_read_with_the_offset_before_it():
    # 02:30 does not exist on 2026-03-29 in Berlin: read as 02:30 CET, which is 03:30 CEST.
    end = ends(at(BERLIN, "2026-03-29 01:00"), start="23:00", end="02:30")
    assert end == datetime(2026, 3, 29, 1, 30, tzinfo=UTC)


def test_fall_back_in_new_york_lengthens_the_night_by_an_hour():
    # 2026-11-01 02:00 EDT becomes 01:00 EST: the night of 22:00-08:00 is 11 hours long.
    start = at(NEW_YORK, "2026-10-31 22:00")
    end = ends(at(NEW_YORK, "2026-11-01 01:30"), zone=NEW_YORK)
    assert end == datetime(2026, 11, 1, 13, 0, tzinfo=UTC)  # 08:00 EST
    assert (end - start).total_seconds() == 11 * 3600


def test_the_repeated_hour_is_inside_both_times():
    # 01:30 happens twice on 2026-11-01 in New York: both instants are in the stretch.
    first = datetime(2026, 11, 1, 5, 30, tzinfo=UTC)  # 01:30 EDT
    second = datetime(2026, 11, 1, 6, 30, tzinfo=UTC)  # 01:30 EST
    assert ends(first, zone=NEW_YORK, start="01:00", end="02:00") is not None
    assert ends(second, zone=NEW_YORK, start="01:00", end="02:00") is not None


def test_back_to_back_stretches_are_followed_to_the_last_end():
    # 08:00-08:00 is refused; 08:01-08:00 leaves one minute a day: a send at 09:00 waits for
    # 08:00 the next day, and one at 08:00 goes.
    assert ends(at(BERLIN, "2026-06-10 09:00"), start="08:01", end="08:00") == at(
        BERLIN, "2026-06-11 08:00"
    )
    assert ends(at(BERLIN, "2026-06-10 08:00"), start="08:01", end="08:00") is None


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("22:00", ("", "must be an object")),
        ({"start": "22:00"}, ("end", "this field is required")),
        ({"start": "25:00", "end": "08:00"}, ("start", "'25:00' is not a time of day")),
        ({"start": 22, "end": "08:00"}, ("start", "must be a time of day")),
        ({"start": "08:00", "end": "08:00"}, ("end", "must differ from start")),
        ({"start": "22:00", "end": "08:00", "days": []}, ("days", "non-empty list")),
        ({"start": "22:00", "end": "08:00", "days": ["mon", "mon"]}, ("days", "distinct")),
        ({"start": "22:00", "end": "08:00", "days": ["monday"]}, ("days", "days from mon")),
        ({"start": "22:00", "end": "08:00", "zone": "UTC"}, ("zone", "unknown field 'zone'")),
    ],
)
def test_a_bad_value_is_refused_naming_its_field(value, problem):
    found = quiet_hours_problems(value)
    assert [name for name, _ in found] == [problem[0]]
    assert problem[1] in found[0][1]


@pytest.mark.parametrize(
    "value", [None, {}, {"start": "22:00", "end": "08:00", "days": ["sat", "sun"]}]
)
def test_good_values_pass(value):
    assert quiet_hours_problems(value) == []


def test_urgent_runs_are_those_of_required_workflows_or_from_the_bypass_priority(settings):
    settings.NOTIFLOW_QUIET_HOURS_BYPASS_PRIORITY = 8
    assert run_urgent(required=True, priority=0)
    assert run_urgent(required=False, priority=8)
    assert not run_urgent(required=False, priority=7)


def test_the_hold_says_deferred_with_the_end_in_the_persons_zone():
    hold = quiet_hours_hold(
        {"start": "22:00", "end": "08:00", "days": ["wed"]},
        timezone="Europe/Berlin",
        now=at(BERLIN, "2026-06-10 23:00"),
        who="Ada",
        label="Email",
    )
    assert hold is not None and hold.until == at(BERLIN, "2026-06-11 08:00")
    assert hold.decision.decision == DEFERRED and hold.decision.rule == "quiet_hours"
    assert hold.decision.reason == (
        "Email held: Ada's quiet hours (22:00-08:00 wed, Europe/Berlin) end at "
        "2026-06-11 08:00 +0200"
    )
    assert hold.decision.evidence["until"] == "2026-06-11T08:00:00+02:00"


def test_without_a_zone_the_default_zone_is_the_persons(settings):
    settings.NOTIFLOW_DEFAULT_TIMEZONE = "America/New_York"
    hold = quiet_hours_hold(
        {"start": "22:00", "end": "08:00"},
        timezone="",
        now=at(NEW_YORK, "2026-06-10 23:00"),
        who="Ada",
        label="SMS",
    )
    assert hold is not None and hold.decision.evidence["timezone"] == "America/New_York"
    assert hold.until == at(NEW_YORK, "2026-06-11 08:00")
