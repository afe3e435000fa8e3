"""Recurrence rules in local time (schedules/rules.py): RFC 5545's reading of a local time across
DST in two zones (Europe/Paris and America/New_York, spring forward and fall back), and the rules
refused with their reasons."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from itertools import islice

import pytest

from schedules.rules import (
    RuleProblem,
    first_local,
    instant_of,
    local_parse,
    occurrences,
    rule_parse,
    zone_checked,
)

PARIS = zone_checked("Europe/Paris")
NEW_YORK = zone_checked("America/New_York")


def utc(local: datetime, zone) -> str:
    return instant_of(local, zone).strftime("%Y-%m-%dT%H:%M")


def daily(hour: int, minute: int = 0):
    return rule_parse(
        f"FREQ=DAILY;BYHOUR={hour};BYMINUTE={minute}", start=datetime(2026, 1, 1), min_interval=60
    )


@pytest.mark.parametrize(
    ("zone", "days", "expected"),
    [
        # Paris springs forward on 2026-03-29 at 02:00 (to 03:00): 02:30 does not exist that
        # day and is read with the offset before the gap, 03:30 CEST.
        (PARIS, (28, 29, 30), ["2026-03-28T01:30", "2026-03-29T01:30", "2026-03-30T00:30"]),
        # New York springs forward on 2026-03-08 at 02:00.
        (NEW_YORK, (7, 8, 9), ["2026-03-07T07:30", "2026-03-08T07:30", "2026-03-09T06:30"]),
    ],
    ids=["Europe/Paris", "America/New_York"],
)
def test_a_local_time_that_does_not_exist_moves_forward_by_the_gap(zone, days, expected):
    rule = daily(2, 30)
    locals_ = [datetime(2026, 3, day, 2, 30) for day in days]
    assert list(occurrences(rule, after=locals_[0], ends=locals_[-1])) == locals_

    assert [utc(local, zone) for local in locals_] == expected
    moved = instant_of(locals_[1], zone).astimezone(zone)
    assert (moved.hour, moved.minute) == (3, 30)


@pytest.mark.parametrize(
    ("zone", "day", "first"),
    [
        # Paris falls back on 2026-10-25 at 03:00 (to 02:00): 02:30 happens twice.
        (PARIS, datetime(2026, 10, 25, 2, 30), "2026-10-25T00:30"),
        # New York falls back on 2026-11-01 at 02:00 (to 01:00): 01:30 happens twice.
        (NEW_YORK, datetime(2026, 11, 1, 1, 30), "2026-11-01T05:30"),
    ],
    ids=["Europe/Paris", "America/New_York"],
)
def test_a_local_time_that_happens_twice_fires_once_the_first_time(zone, day, first):
    rule = rule_parse(
        f"FREQ=DAILY;BYHOUR={day.hour};BYMINUTE=30", start=datetime(2026, 1, 1), min_interval=60
    )
    that_day = [
        local for local in occurrences(rule, after=day.replace(hour=0), ends=day.replace(hour=23))
    ]

    assert that_day == [day]  # the rule yields the local time once
    assert utc(day, zone) == first  # the first of the two: summer time still
    assert instant_of(day, zone).astimezone(zone).dst()


def test_hourly_across_spring_forward_makes_one_instant_of_the_missing_hour_and_the_next():
    """02:00 does not exist in New York on 2026-03-08: read as 03:00 EDT, the same instant as
    the 03:00 occurrence, so the two keys are one and one run is made."""
    rule = rule_parse("FREQ=HOURLY;BYMINUTE=0", start=datetime(2026, 3, 8), min_interval=60)
    hours = list(occurrences(rule, after=datetime(2026, 3, 8, 1), ends=datetime(2026, 3, 8, 4)))

    instants = [utc(local, NEW_YORK) for local in hours]
    assert instants == [
        "2026-03-08T06:00",
        "2026-03-08T07:00",
        "2026-03-08T07:00",
        "2026-03-08T08:00",
    ]


def test_the_first_occurrence_in_each_recipient_zone_is_still_to_come_somewhere():
    rule = daily(9)
    now = instant_of(datetime(2026, 12, 7, 12, 0), zone_checked("UTC"))

    # Paris (13:00 there) is past 9:00: its next is tomorrow; New York (07:00) is not.
    assert first_local(rule, zone=PARIS, since=now, ends=None) == datetime(2026, 12, 8, 9)
    assert first_local(rule, zone=NEW_YORK, since=now, ends=None) == datetime(2026, 12, 7, 9)
    # Each recipient's own: the earliest any zone may still see, today's.
    assert first_local(rule, zone=None, since=now, ends=None) == datetime(2026, 12, 7, 9)


@pytest.mark.parametrize(
    ("repeat", "problem"),
    [
        ("", "give one RFC 5545 RRULE"),
        ("DTSTART:20260101T000000\nRRULE:FREQ=DAILY", "give one RFC 5545 RRULE"),
        ("BYHOUR=9", "no FREQ"),
        ("FREQ=SECONDLY", "FREQ=SECONDLY is not supported"),
        ("FREQ=WEEKLY;BYDAY=XX", "invalid 'BYDAY'"),
        ("FREQ=DAILY;UNTIL=20270101T000000Z", "UNTIL is a local time without Z"),
        ("FREQ=MINUTELY;BYSECOND=0,30", "closer than 60 seconds apart"),
        ("FREQ=FORTNIGHTLY", "not a valid RFC 5545 rule"),
    ],
)
def test_a_bad_rule_is_refused_saying_why(repeat, problem):
    with pytest.raises(RuleProblem, match=problem):
        rule_parse(repeat, start=datetime(2026, 1, 1), min_interval=60)


def test_a_local_time_with_an_offset_is_an_instant_in_a_fixed_zone_only():
    assert local_parse("2026-12-07T08:00:00Z", zone=PARIS) == datetime(2026, 12, 7, 9)
    assert local_parse("2026-12-07T09:00:00", zone=None) == datetime(2026, 12, 7, 9)
    with pytest.raises(RuleProblem, match="without an offset"):
        local_parse("2026-12-07T09:00:00+01:00", zone=None)
    with pytest.raises(RuleProblem, match="not an ISO 8601"):
        local_parse("next monday", zone=PARIS)
    with pytest.raises(RuleProblem, match="not an IANA time zone"):
        zone_checked("Mars/Olympus")


@pytest.mark.parametrize(
    "repeat",
    [
        "FREQ=MINUTELY;INTERVAL=7",
        "FREQ=HOURLY;INTERVAL=5;BYMINUTE=10,40",
        "FREQ=DAILY;INTERVAL=3;BYHOUR=9,18",
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR;BYHOUR=9;BYMINUTE=0",
        "FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17",
        "FREQ=DAILY;COUNT=400;BYHOUR=8",
    ],
)
def test_a_rule_evaluated_near_a_date_yields_what_it_yields_from_its_start(repeat):
    """The start moved by whole periods (schedules.rules.Rule.near) changes no occurrence."""
    start = datetime(2025, 1, 1, 0, 3, 17)
    rule = rule_parse(repeat, start=start, min_interval=60)
    from_start = list(islice(rule.near(start).xafter(start, inc=True), 3000))
    for index in (0, 1, len(from_start) // 3, len(from_start) - 6):
        after = from_start[index] - timedelta(seconds=1)
        near = list(islice(occurrences(rule, after=after, ends=None), 5))
        assert near == from_start[index : index + 5], (repeat, index)


def test_a_minutely_rule_years_old_is_evaluated_near_the_date_at_once():
    rule = rule_parse("FREQ=MINUTELY;INTERVAL=5", start=datetime(2020, 1, 1, 0, 3), min_interval=60)
    started = time.perf_counter()

    upcoming = list(islice(occurrences(rule, after=datetime(2026, 11, 28, 12, 1), ends=None), 3))

    assert upcoming == [datetime(2026, 11, 28, 12, m) for m in (3, 8, 13)]
    assert time.perf_counter() - started < 0.5  # from 2020 minute by minute takes seconds


def test_times_at_the_ends_of_the_calendar_are_refused_or_end_the_rule():
    with pytest.raises(RuleProblem, match="the year must be from 1970 to 2999"):
        local_parse("9999-12-31T23:59:59", zone=None)
    with pytest.raises(RuleProblem, match="out of range"):
        local_parse("9999-12-31T23:59:59-12:00", zone=PARIS)
    rule = rule_parse("FREQ=YEARLY", start=datetime(2999, 6, 1), min_interval=60)
    assert list(occurrences(rule, after=datetime(2999, 1, 1), ends=None))[-1].year == 9999
