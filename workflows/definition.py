"""What a workflow definition may contain: node types, their fields, and delay durations."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

MAX_DELAY = timedelta(days=365)
THROTTLE_MAX = 1_000_000  # the most runs a throttle's `limit` may let through per window
FLOW_KEY_MAX = 500  # the longest rendered throttle or digest key (their state's `key` column)


@dataclass(frozen=True)
class NodeType:
    name: str
    required: tuple[str, ...]
    optional: tuple[str, ...] = ()
    # Fields rendered with Liquid at run time (and parsed at save time); those in `html` render
    # with autoescape.
    templates: tuple[str, ...] = ()
    html: tuple[str, ...] = ()
    # Whether running it calls a provider: a send ledger row, an output in vars (`<type>_<id>`).
    # Each such type has a channel in workers.nodes.CHANNELS.
    sends: bool = False
    # Whether its output lands in vars (`<type>_<id>`) without sending: throttle and digest.
    outputs: bool = False


NODE_TYPES: dict[str, NodeType] = {
    "email": NodeType(
        "email",
        required=("to", "subject", "body"),
        # max_recipients: how many addresses `to` may render to (1 unless set; docs/security.md).
        # provider: the named provider to send through first (docs/design.md, "Providers").
        # skip_suppressed: a suppressed recipient skips the node instead of failing the run.
        optional=("html", "max_recipients", "provider", "skip_suppressed"),
        templates=("to", "subject", "body", "html"),
        html=("html",),
        sends=True,
    ),
    "sms": NodeType(
        "sms",
        required=("to", "body"),
        optional=("provider", "skip_suppressed"),
        templates=("to", "body"),
        sends=True,
    ),
    # Timing and flow control (docs/design.md, "Timing and flow-control nodes"): each runs as
    # one step like any other node; throttle and digest leave an output in vars too.
    "delay": NodeType(
        "delay", required=(), optional=("delay_ms", "duration", "until"), templates=("until",)
    ),
    "window": NodeType(
        "window", required=("start", "end"), optional=("timezone", "days"), templates=("timezone",)
    ),
    "throttle": NodeType(
        "throttle", required=("key", "limit", "window"), templates=("key",), outputs=True
    ),
    "digest": NodeType("digest", required=("key", "window"), templates=("key",), outputs=True),
}

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


def delay_spelled(node: dict[str, Any]) -> str:
    """A delay node's wait as its author wrote it ("15m", "1500 ms", "until {{ ... }}"), or ""."""
    if node.get("until"):
        return f"until {node['until']}"
    if node.get("duration"):
        return str(node["duration"])
    return f"{node['delay_ms']} ms" if node.get("delay_ms") is not None else ""


def delay_of(node: dict[str, Any]) -> timedelta:
    """The fixed wait a (validated) delay node asks for (none for a delay `until` a time)."""
    if node.get("until"):
        return timedelta(0)
    if node.get("delay_ms") is not None:
        return timedelta(milliseconds=int(node["delay_ms"]))
    return duration_parse(str(node["duration"]))
