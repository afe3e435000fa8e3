"""What the trigger commands (manage.py) take on their command line; the helpers every command
uses are common/cli.py's."""

from __future__ import annotations

from collections.abc import Iterable
from uuid import UUID

from django.core.management.base import CommandError

from triggers.selectors import trigger_ids_by_prefix


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
