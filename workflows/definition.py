"""What a workflow definition may contain besides its node types (workflows.nodes, the registry):
its category, provider names, delay durations and their limits."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

MAX_DELAY = timedelta(days=365)
FLOW_KEY_MAX = 500  # the longest rendered throttle or digest key (their state's `key` column)


# A workflow's category (docs/design.md, "Suppression and unsubscribe"): marketing email carries
# a one-click unsubscribe and respects marketing-only suppressions; transactional mail neither.
TRANSACTIONAL, MARKETING = "transactional", "marketing"
CATEGORIES = (TRANSACTIONAL, MARKETING)


def category_of(definition: dict[str, Any]) -> str:
    """A (validated) definition's category: stored only when it is not the default."""
    return str(definition.get("category") or TRANSACTIONAL)


# A provider's name (workers/providers): what a node's `provider` may say.
PROVIDER_NAME = re.compile(r"^[a-z][a-z0-9_]{0,49}$")

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
