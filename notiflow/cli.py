"""Small helpers shared by the operator commands (manage.py): parsing times and payloads, and a
progress bar on stderr that stays out of the way when stderr is not a terminal."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar
from uuid import UUID

from django.core.management.base import CommandError
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from tqdm import tqdm

from triggers.selectors import trigger_ids_by_prefix
from workflows.definition import duration_parse
from workflows.models import Workflow

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


def parse_trigger_ids(values: Iterable[str]) -> list[UUID]:
    """The triggers named on the command line, each by its id or by a unique prefix of it (the
    8 characters the admin shows will do); one CommandError naming every value that is not one,
    names no trigger, or names several (listing them). Nothing is changed before all are known."""
    ids, bad = [], []
    for value in values:
        try:
            ids.append(UUID(value.strip()))
            continue
        except ValueError:
            pass
        try:
            found = trigger_ids_by_prefix(value)
        except ValueError as exc:
            bad.append(str(exc))
            continue
        if len(found) == 1:
            ids.append(found[0])
        elif not found:
            bad.append(f"no trigger id starts with {value!r}")
        else:
            listed = ", ".join(map(str, found[:10])) + (", …" if len(found) > 10 else "")
            bad.append(f"{value!r} is ambiguous: it starts the ids {listed}")
    if bad:
        raise CommandError(f"{'; '.join(bad)}; nothing was changed")
    return ids


def existing_workflow_key(value: str | None, *, option: str = "--workflow") -> str | None:
    """An optional workflow key from an option, checked: None when absent, CommandError when it
    is empty or names no workflow (a typo must not read as "0 of 0, all fine")."""
    if value is None:
        return None
    key = value.strip()
    if not key:
        raise CommandError(f"{option}: give a workflow key (it was empty)")
    if not Workflow.objects.filter(key=key).exists():
        raise CommandError(f"{option}: no workflow {key!r}")
    return key
