"""Small helpers shared by the operator commands (manage.py): parsing times and payloads, and a
progress bar on stderr that stays out of the way when stderr is not a terminal."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from django.core.management.base import CommandError
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from tqdm import tqdm

from common.durations import duration_parse

T = TypeVar("T")


def progress(items: Iterable[T], *, total: int, description: str) -> Iterator[T]:
    """Iterate with a progress bar on stderr (shown only on a terminal, so logs stay clean)."""
    yield from tqdm(items, total=total, desc=description, unit="", file=sys.stderr, disable=None)


def parse_since(value: str) -> datetime:
    """A moment: an ISO date or datetime (UTC unless it says otherwise), or an age like 2h/3d."""
    try:
        moment = parse_datetime(value)
        if moment is None and (day := parse_date(value)) is not None:
            moment = datetime(day.year, day.month, day.day)
    except ValueError as exc:  # well formed but impossible, e.g. 2026-13-01
        raise CommandError(f"{value!r} is not a valid date: {exc}") from exc
    if moment is not None:
        return moment if timezone.is_aware(moment) else timezone.make_aware(moment, UTC)
    return timezone.now() - parse_age(value)


def parse_age(value: str) -> timedelta:
    try:
        return duration_parse(value)
    except ValueError as exc:
        raise CommandError(
            f"{value!r} is neither a date nor an age such as 90s, 15m, 2h, 3d"
        ) from exc


def parse_period(value: str, *, option: str) -> timedelta:
    """A positive period for `option` (30d, 12h, 90m, PT36H ...), or a CommandError naming it."""
    try:
        period = duration_parse(value)
    except ValueError as exc:
        raise CommandError(f"{option}: {exc}") from exc
    if period <= timedelta(0):
        raise CommandError(f"{option} must be longer than zero, not {value!r}")
    return period


def read_json(value: str, *, what: str) -> Any:
    """JSON given inline, as @path to a file, or as @- for standard input."""
    if value.startswith("@"):
        source = value[1:]
        where = "standard input" if source == "-" else source
        try:
            text = sys.stdin.read() if source == "-" else Path(source).read_text()
        except OSError as exc:
            raise CommandError(f"cannot read {what} from {where}: {exc.strerror}") from exc
        what = f"{what} in {where}"
    else:
        text = value
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{what} is not valid JSON: {exc}") from exc
