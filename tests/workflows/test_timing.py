"""Send windows and delays until a time, with the clock set by the test (workflows/timing.py and
the run semantics): daylight-saving changes in Europe/Berlin and America/New_York, both ways."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.test import override_settings

from workflows.nodes import NODE_TYPES
from workflows.semantics import RenderError, execution_context
from workflows.timing import clock_parse, until_parse, window_opening, zone_parse

BERLIN, NEW_YORK = ZoneInfo("Europe/Berlin"), ZoneInfo("America/New_York")
WEEKDAYS = ["mon", "tue", "wed", "thu", "fri"]
EVERY_DAY = [*WEEKDAYS, "sat", "sun"]


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def opening(now: datetime, zone: ZoneInfo, start: str, end: str, days=EVERY_DAY):
    return window_opening(now, zone=zone, days=days, start=clock_parse(start), end=clock_parse(end))


# Europe/Berlin: clocks go 02:00 -> 03:00 on 2026-03-29 (CET +1 to CEST +2) and 03:00 -> 02:00
# on 2026-10-25. America/New_York: 02:00 -> 03:00 on 2026-03-08 (EST -5 to EDT -4) and
# 02:00 -> 01:00 on 2026-11-01.


def test_a_window_after_spring_forward_opens_at_local_nine_which_is_an_hour_earlier_in_utc():
    saturday_evening = utc("2026-03-28T19:00")  # 20:00 CET
    opens = opening(saturday_evening, BERLIN, "09:00", "18:00")
    assert opens == utc("2026-03-29T07:00")  # 09:00 CEST: 12 hours later, not 13
    assert opens.astimezone(BERLIN).hour == 9
    assert opens - saturday_evening == timedelta(hours=12)


def test_a_window_after_fall_back_opens_at_local_nine_which_is_an_hour_later_in_utc():
    saturday_evening = utc("2026-10-24T18:00")  # 20:00 CEST
    opens = opening(saturday_evening, BERLIN, "09:00", "18:00")
    assert opens == utc("2026-10-25T08:00")  # 09:00 CET: 14 hours later, not 13
    assert opens - saturday_evening == timedelta(hours=14)


def test_new_york_spring_forward_and_fall_back():
    assert opening(utc("2026-03-08T01:00"), NEW_YORK, "09:00", "17:00") == utc("2026-03-08T13:00")
    assert opening(utc("2026-03-07T01:00"), NEW_YORK, "09:00", "17:00") == utc("2026-03-07T14:00")
    assert opening(utc("2026-11-01T01:00"), NEW_YORK, "09:00", "17:00") == utc("2026-11-01T14:00")
    assert opening(utc("2026-10-31T01:00"), NEW_YORK, "09:00", "17:00") == utc("2026-10-31T13:00")


def test_an_opening_inside_the_spring_forward_gap_is_read_with_the_offset_before_it():
    # 02:30 does not exist in Berlin on 2026-03-29; RFC 5545 reads it as 02:30 CET = 03:30 CEST.
    before = utc("2026-03-28T23:00")  # 00:00 CET
    opens = opening(before, BERLIN, "02:30", "05:00")
    assert opens == utc("2026-03-29T01:30")
    assert opens.astimezone(BERLIN).strftime("%H:%M %Z") == "03:30 CEST"


def test_an_opening_in_the_repeated_fall_back_hour_is_its_first_occurrence():
    # 01:30 happens twice in New York on 2026-11-01: first EDT (05:30 UTC), then EST (06:30 UTC).
    before = utc("2026-11-01T04:00")  # 00:00 EDT
    assert opening(before, NEW_YORK, "01:30", "03:00") == utc("2026-11-01T05:30")


def test_an_overnight_window_across_spring_forward_is_seven_hours_long():
    # 22:00 EST on 2026-03-07 to 06:00 EDT on 2026-03-08: 03:00 UTC to 10:00 UTC.
    assert opening(utc("2026-03-08T03:00"), NEW_YORK, "22:00", "06:00") is None
    assert opening(utc("2026-03-08T09:59"), NEW_YORK, "22:00", "06:00") is None
    assert opening(utc("2026-03-08T10:00"), NEW_YORK, "22:00", "06:00") == utc("2026-03-09T02:00")


def test_inside_the_window_it_passes_and_its_end_is_exclusive():
    assert opening(utc("2026-06-01T07:00"), BERLIN, "09:00", "18:00") is None  # 09:00 CEST
    assert opening(utc("2026-06-01T15:59"), BERLIN, "09:00", "18:00") is None
    assert opening(utc("2026-06-01T16:00"), BERLIN, "09:00", "18:00") == utc("2026-06-02T07:00")


def test_outside_the_days_it_waits_for_the_next_day_listed():
    friday_evening = utc("2026-11-27T17:30")  # Friday 18:30 CET
    assert opening(friday_evening, BERLIN, "09:00", "18:00", WEEKDAYS) == utc("2026-11-30T08:00")
    assert opening(friday_evening, BERLIN, "09:00", "18:00", ["wed"]) == utc("2026-12-02T08:00")


def test_until_needs_an_offset_and_reads_z():
    assert until_parse("2026-03-29T09:00:00+02:00") == utc("2026-03-29T07:00")
    assert until_parse(" 2026-03-29T07:00:00Z ") == utc("2026-03-29T07:00")
    with pytest.raises(ValueError, match="'2026-03-29T09:00:00' has no UTC offset"):
        until_parse("2026-03-29T09:00:00")
    with pytest.raises(ValueError, match="'next tuesday' is not an ISO-8601 timestamp"):
        until_parse("next tuesday")


def test_zones_and_clocks_are_checked():
    assert zone_parse("Europe/Berlin") == BERLIN
    for bad in ("Europe/Berln", "", "../etc/passwd", "/etc/localtime"):
        with pytest.raises(ValueError, match="is not an IANA time zone"):
            zone_parse(bad)
    assert clock_parse("09:05") == time(9, 5)
    for bad in ("9:00", "24:00", "09:60", "nine"):
        with pytest.raises(ValueError, match="is not a time of day"):
            clock_parse(bad)


def context(payload):
    now = utc("2026-03-28T19:00")
    return execution_context(payload=payload, vars={}, trigger={}, workflow={}, now=now)


# The node types' own wait: what a step of theirs runs (workflows/nodes/timing.py).
WINDOW_TYPE, DELAY_TYPE = NODE_TYPES["window"], NODE_TYPES["delay"]
WINDOW = {"id": "office", "type": "window", "timezone": "{{ payload.tz }}"}


def test_the_run_semantics_wait_for_a_window_in_the_zone_the_payload_names():
    node = {**WINDOW, "start": "09:00", "end": "18:00"}
    wait = WINDOW_TYPE.wait(node, context({"tz": "Europe/Berlin"}), utc("2026-03-28T19:00"))
    assert wait.resume_at == utc("2026-03-29T07:00")
    assert wait.output == {
        "timezone": "Europe/Berlin",
        "open": False,
        "opens_at": "2026-03-29T09:00:00+02:00",
        "delay_ms": 12 * 3600 * 1000,
    }
    inside = WINDOW_TYPE.wait(node, context({"tz": "Asia/Tokyo"}), utc("2026-03-28T01:00"))
    assert inside.resume_at == utc("2026-03-28T01:00") and inside.output["open"] is True


@override_settings(NOTIFLOW_DEFAULT_TIMEZONE="America/New_York")
def test_an_empty_zone_is_the_default_one_and_an_unknown_zone_fails_naming_it():
    node = {**WINDOW, "start": "09:00", "end": "17:00"}
    wait = WINDOW_TYPE.wait(node, context({"tz": ""}), utc("2026-03-08T01:00"))
    assert wait.resume_at == utc("2026-03-08T13:00") and wait.output["timezone"] == (
        "America/New_York"
    )
    with pytest.raises(RenderError, match="node 'office' field 'timezone': 'Mars/Olympus'"):
        WINDOW_TYPE.wait(node, context({"tz": "Mars/Olympus"}), utc("2026-03-08T01:00"))


def test_a_delay_until_a_past_time_goes_on_at_once_and_a_bad_one_fails_naming_it():
    node = {"id": "later", "type": "delay", "until": "{{ payload.at }}"}
    now = utc("2026-03-28T19:00")
    past = DELAY_TYPE.wait(node, context({"at": "2020-01-01T00:00:00Z"}), now)
    assert past.resume_at == now and past.output["delay_ms"] == 0
    future = DELAY_TYPE.wait(node, context({"at": "2026-03-29T09:00:00+02:00"}), now)
    assert future.resume_at == utc("2026-03-29T07:00")
    assert future.output == {"until": "2026-03-29T07:00:00+00:00", "delay_ms": 12 * 3600 * 1000}
    with pytest.raises(RenderError, match="node 'later' field 'until': 'soon' is not an ISO"):
        DELAY_TYPE.wait(node, context({"at": "soon"}), now)
    with pytest.raises(RenderError, match="more than 365 days away"):
        DELAY_TYPE.wait(node, context({"at": "2030-01-01T00:00:00Z"}), now)
