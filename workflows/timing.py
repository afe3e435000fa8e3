"""Time arithmetic of the timing nodes, pure: a delay's `until`, a send window's next opening
(docs/design/workflows.md, "Timing and flow-control nodes"). No clock but the `now` passed in.

Local times follow RFC 5545 (iCalendar): a wall-clock time that does not exist (inside a
spring-forward gap) is read with the offset before the gap, so a window opening at 02:30 on
that night opens at 03:30 new time; one that exists twice (a fall-back hour) is its first
occurrence. Both are what `datetime.combine(..., tzinfo=ZoneInfo(...))` gives (fold=0).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # date.weekday() order
_CLOCK = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


def until_parse(text: str) -> datetime:
    """An ISO-8601 timestamp with a UTC offset ("2026-03-29T09:00:00+02:00", "...Z"), in UTC;
    ValueError naming the value otherwise (a timestamp without an offset is ambiguous)."""
    spelled = text.strip()
    try:
        moment = datetime.fromisoformat(spelled)
    except ValueError:
        raise ValueError(
            f"{spelled!r} is not an ISO-8601 timestamp such as 2026-03-29T09:00:00+02:00"
        ) from None
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{spelled!r} has no UTC offset (add one, e.g. +02:00 or Z)")
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+14:00 is before the first moment Python has
        raise ValueError(f"{spelled!r} is out of the range of dates") from None


def zone_parse(name: str) -> ZoneInfo:
    """The IANA time zone `name` ("Europe/Berlin"); ValueError naming it when there is none."""
    spelled = name.strip()
    try:
        if not spelled or spelled.startswith(("/", ".")) or ".." in spelled:
            raise ValueError
        return ZoneInfo(spelled)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(f"{spelled!r} is not an IANA time zone such as Europe/Berlin") from None


def clock_parse(text: str) -> time:
    """A wall-clock time "HH:MM" (24 hours); ValueError otherwise."""
    match = _CLOCK.match(str(text).strip())
    if not match:
        raise ValueError(f"{text!r} is not a time of day such as 09:00 (HH:MM, 24 hours)")
    return time(int(match.group(1)), int(match.group(2)))


def _local(day: date, clock: time, zone: ZoneInfo) -> datetime:
    """`clock` on `day` in `zone`, as a UTC instant (RFC 5545 for gaps and repeats)."""
    return datetime.combine(day, clock, tzinfo=zone).astimezone(UTC)


def window_opening(
    now: datetime, *, zone: ZoneInfo, days: list[str], start: time, end: time
) -> datetime | None:
    """When the window next opens after `now`, or None when `now` is inside it.

    The window is open from `start` to `end` local time on each of `days`; when `end` is not
    after `start` it runs past midnight into the next day (22:00-06:00), and belongs to the day
    it opens. Every candidate interval is turned into UTC instants before it is compared, so a
    daylight-saving change inside a window lengthens or shortens it as the clocks do.
    """
    wanted = {WEEKDAYS.index(day) for day in days}
    overnight = end <= start
    today = now.astimezone(zone).date()
    for offset in range(-1, 9):  # yesterday's overnight window may still be open; a week on
        day = today + timedelta(days=offset)
        if day.weekday() not in wanted:
            continue
        opens = _local(day, start, zone)
        closes = _local(day + timedelta(days=1 if overnight else 0), end, zone)
        if opens <= now < closes:
            return None
        if opens > now:
            return opens
    raise ValueError("a window with no days never opens")  # the validator refuses it first


def quiet_hours_end(
    now: datetime, *, zone: ZoneInfo, days: list[str], start: time, end: time
) -> datetime | None:
    """When the quiet hours `now` falls in end, or None when it falls in none.

    Quiet hours run from `start` to `end` local time, starting on each of `days`; an `end` not
    after `start` runs past midnight (22:00-08:00) and belongs to the day it starts, as a
    window's does (window_opening; RFC 5545 for gaps and repeats). A stretch that ends where
    (or after) the next one starts, as a daylight-saving change can make it, is followed to its
    last end.
    """
    wanted = {WEEKDAYS.index(day) for day in days}
    overnight = end <= start
    ends: datetime | None = None
    at = now
    for _ in range(8):  # each stretch is shorter than a day and a half: a week bounds it
        today = at.astimezone(zone).date()
        found = None
        for offset in (-1, 0):  # yesterday's overnight stretch may still run
            day = today + timedelta(days=offset)
            if day.weekday() not in wanted:
                continue
            begins = _local(day, start, zone)
            finishes = _local(day + timedelta(days=1 if overnight else 0), end, zone)
            if begins <= at < finishes:
                found = finishes
        if found is None:
            return ends
        ends = at = found
    return ends
