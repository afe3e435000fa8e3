"""Recurrence rules in local time (docs/guide/schedules.md): pure, no database.

A schedule's `repeat` is an RFC 5545 RRULE evaluated by python-dateutil's `rrulestr` with the
schedule's DTSTART (`starts_at`) as a *naive* local wall-clock time, so "BYHOUR=9" is 9:00 on
the wall in whatever zone it is read in. Each local occurrence becomes an instant per zone with
`instant_of`, by RFC 5545's own rule (§3.3.5), which is zoneinfo's `fold=0`: a local time that
does not exist (spring forward) is read with the offset before the gap, so it moves forward by
the gap (02:30 becomes 03:30); one that happens twice (fall back) is its first. The rule yields
each local time once, so it fires once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dateutil.rrule import rrule, rrulestr

LOCAL_FORMAT = "%Y-%m-%dT%H:%M:%S"
# Local wall clocks run from UTC-12 to UTC+14: a local time is an instant in some zone no
# earlier than 14 hours before it reads in UTC, and no later than 12 hours after.
EARLIEST_OFFSET = timedelta(hours=14)
LATEST_OFFSET = timedelta(hours=12)
# The years a schedule's times may name: a rule evaluated at datetime's ends fails to.
YEARS = (1970, 2999)
_FREQ = re.compile(r"(?:^|;)FREQ=([A-Z]+)(?:;|$)")
# How many occurrences the check of the finest interval looks at.
_SPACING_SAMPLE = 50


class RuleProblem(Exception):
    """What is wrong with a rule, a zone or a local time, in words for a 400."""


def zone_checked(name: str) -> ZoneInfo:
    """The IANA zone `name`; RuleProblem when there is none."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise RuleProblem(
            f'{name!r} is not an IANA time zone (such as Europe/Paris) nor "recipient"'
        ) from None


def local_parse(text: str, *, zone: ZoneInfo | None) -> datetime:
    """A local wall-clock time from ISO 8601 (`2026-12-07T09:00:00`). With an offset (`Z`,
    `+01:00`) it is an instant, read in `zone`; RuleProblem when there is no zone to read it in
    (a schedule in each recipient's zone takes a local time) or the text is no time."""
    try:
        parsed = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise RuleProblem(f"{text!r} is not an ISO 8601 date and time") from None
    if parsed.tzinfo is not None:
        if zone is None:
            raise RuleProblem(
                'with timezone "recipient" give a local time without an offset '
                "(it is read in each recipient's own zone)"
            )
        try:
            parsed = parsed.astimezone(zone).replace(tzinfo=None)
        except OverflowError:
            raise RuleProblem(f"{text!r} is out of range") from None
    if not YEARS[0] <= parsed.year <= YEARS[1]:
        raise RuleProblem(f"{text!r}: the year must be from {YEARS[0]} to {YEARS[1]}")
    return parsed.replace(microsecond=0)


def local_text(local: datetime) -> str:
    return local.strftime(LOCAL_FORMAT)


def local_of(text: str) -> datetime:
    return datetime.strptime(text, LOCAL_FORMAT)


# The length of one period of a rule whose occurrences repeat whole periods apart in local
# (naive) time, which knows no DST: its DTSTART may be moved forward by whole periods without
# changing an occurrence after it (each default dateutil takes from DTSTART, its second, minute,
# hour and weekday, is kept). Months and years are not of one length: those rules are evaluated
# from DTSTART, a dozen occurrences a year at most.
_PERIODS = {
    "MINUTELY": timedelta(minutes=1),
    "HOURLY": timedelta(hours=1),
    "DAILY": timedelta(days=1),
    "WEEKLY": timedelta(weeks=1),
}
_INTERVAL = re.compile(r"(?:^|;)INTERVAL=([0-9]+)(?:;|$)")
_COUNT = re.compile(r"(?:^|;)COUNT=")


@dataclass(frozen=True)
class Rule:
    """A recurrence rule from its local DTSTART; `period`, when set, what its DTSTART may move
    by (_PERIODS) so that evaluating it near a date costs the same however far the start is."""

    body: str
    start: datetime
    period: timedelta | None

    def near(self, local: datetime) -> rrule:
        """The rule, its DTSTART moved by whole periods to at most one before `local`."""
        start = self.start
        if self.period is not None and local > start:
            start += self.period * ((local - start) // self.period)
            start = max(self.start, start - self.period)
        return _parsed(self.body, start)


@lru_cache(maxsize=1024)
def _parsed(body: str, start: datetime) -> rrule:
    rule = rrulestr(body, dtstart=start)
    if not isinstance(rule, rrule):
        raise RuleProblem("give one RRULE, not a set of rules")
    return rule


def rule_parse(repeat: str, *, start: datetime, min_interval: float) -> Rule:
    """The rule of `repeat` (`FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0`, optionally after
    `RRULE:`) from the local DTSTART `start`; RuleProblem when it is not one RRULE, cannot be
    evaluated, or fires more often than every `min_interval` seconds."""
    text = repeat.strip()
    body = text.removeprefix("RRULE:")
    if not body or "\n" in text or ":" in body:
        raise RuleProblem(
            "give one RFC 5545 RRULE such as FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0 (the "
            "start is starts_at, the zone is timezone)"
        )
    upper = body.upper()
    freq = _FREQ.search(upper)
    if freq is None:
        raise RuleProblem("the rule has no FREQ (such as FREQ=DAILY)")
    if freq.group(1) == "SECONDLY":
        raise RuleProblem("FREQ=SECONDLY is not supported: the finest is MINUTELY")
    start = start.replace(microsecond=0)
    try:
        parsed = _parsed(body, start)
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        if "UNTIL" in str(exc):
            raise RuleProblem(
                "UNTIL is a local time without Z here (the rule is read in local time), or "
                "give ends_at"
            ) from None
        raise RuleProblem(f"not a valid RFC 5545 rule: {exc}") from None
    _spacing_checked(parsed, min_interval)
    period = _PERIODS.get(freq.group(1))
    interval = _INTERVAL.search(upper)
    if period is not None and not _COUNT.search(upper):
        period *= int(interval.group(1)) if interval else 1
    else:
        period = None
    return Rule(body, start, period)


def _spacing_checked(rule: rrule, min_interval: float) -> None:
    before: datetime | None = None
    try:
        for index, local in enumerate(rule):
            if index >= _SPACING_SAMPLE:
                break
            if before is not None and (local - before).total_seconds() < min_interval:
                raise RuleProblem(
                    f"the rule fires {local_text(before)} and {local_text(local)}, closer than "
                    f"{min_interval:g} seconds apart (NOTIFLOW_SCHEDULE_MIN_INTERVAL_SECONDS)"
                )
            before = local
    except (ValueError, OverflowError) as exc:
        raise RuleProblem(f"the rule cannot be evaluated: {exc}") from None


def instant_of(local: datetime, zone: ZoneInfo) -> datetime:
    """The instant (UTC) at which `local` is on the wall in `zone`, by RFC 5545 §3.3.5: a time
    in a spring-forward gap with the offset before it (moved forward), one that happens twice
    the first time."""
    return local.replace(tzinfo=zone, fold=0).astimezone(UTC)


def occurrences(rule: Rule, *, after: datetime, ends: datetime | None) -> Iterator[datetime]:
    """The rule's local occurrences from `after` on (inclusive), none past `ends`."""
    found = rule.near(after).xafter(after, inc=True)
    while True:
        try:
            local = next(found)
        except (StopIteration, ValueError, OverflowError):  # past datetime's last year: no more
            return
        if ends is not None and local > ends:
            return
        yield local


def first_local(
    rule: Rule, *, zone: ZoneInfo | None, since: datetime, ends: datetime | None
) -> datetime | None:
    """The first local occurrence that is still at or after the instant `since` somewhere: in
    `zone`, or (None: each recipient's own) in the westernmost zone there is. Those whose instant
    in a recipient's zone has passed are left to `fires_from` to pass over."""
    if zone is None:
        return next(occurrences(rule, after=_wall(since) - LATEST_OFFSET, ends=ends), None)
    # A day before, then forward to the first instant at or after `since` (gaps and folds
    # make the wall clock no guide to within an hour).
    after = since.astimezone(zone).replace(tzinfo=None) - timedelta(days=1)
    for local in occurrences(rule, after=after, ends=ends):
        if instant_of(local, zone) >= since:
            return local
    return None


def earliest_instant(local: datetime) -> datetime:
    """The first instant at which `local` is on some wall (UTC+14's)."""
    return _wall_instant(local) - EARLIEST_OFFSET


def _wall(instant: datetime) -> datetime:
    return instant.astimezone(UTC).replace(tzinfo=None)


def _wall_instant(local: datetime) -> datetime:
    return local.replace(tzinfo=UTC)
