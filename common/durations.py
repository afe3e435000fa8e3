"""Durations as people write them: "90s", "15m", "2h", "3d" or ISO-8601 "PT15M" (a workflow's
delays and windows, the operator commands' ages and periods)."""

from __future__ import annotations

import re
from datetime import timedelta

_SHORT_DURATION = re.compile(r"^\s*(\d+)\s*(ms|s|m|h|d)\s*$")
_ISO_DURATION = re.compile(
    r"^P(?:(?P<days>\d+)D)?(?:T(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?"
    r"(?:(?P<seconds>\d+(?:\.\d+)?)S)?)?$"
)
_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}


def duration_parse(value: str) -> timedelta:
    """Parse "90s", "15m", "2h", "3d" or ISO-8601 "PT15M"; raise ValueError otherwise (also for
    a duration too long to represent)."""
    try:
        short = _SHORT_DURATION.match(value)
        if short:
            return timedelta(seconds=int(short.group(1)) * _UNITS[short.group(2)])
        iso = _ISO_DURATION.match(value.strip().upper())
        spelled = value.strip().upper()
        if iso and spelled not in ("P", "PT") and not spelled.endswith("T"):
            parts = {k: float(v) for k, v in iso.groupdict().items() if v}
            return timedelta(**parts)
    except (OverflowError, ValueError) as exc:  # past timedelta's ~2.7 million years
        raise ValueError(f"{value!r} is far longer than any delay can be") from exc
    raise ValueError(f"{value!r} is not a duration such as 90s, 15m, 2h, 3d or PT15M")


def duration_text(seconds: float) -> str:
    """A duration as duration_parse reads it: the largest whole unit ("1h", "90m", "45s")."""
    whole = round(seconds)
    for unit in ("d", "h", "m"):
        if whole and whole % _UNITS[unit] == 0:
            return f"{whole // int(_UNITS[unit])}{unit}"
    return f"{whole}s"
