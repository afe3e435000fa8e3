"""What a workflow definition may contain besides its node types (workflows.nodes, the registry):
its category, provider names, delay durations and their limits."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from common.durations import duration_parse

MAX_DELAY = timedelta(days=365)
FLOW_KEY_MAX = 500  # the longest rendered throttle or digest key (their state's `key` column)


# A workflow's category (docs/design.md, "Suppression and unsubscribe"): marketing email carries
# a one-click unsubscribe and respects marketing-only suppressions; transactional mail neither.
TRANSACTIONAL, MARKETING = "transactional", "marketing"
CATEGORIES = (TRANSACTIONAL, MARKETING)

__all__ = ["duration_parse"]  # delays and windows are durations (common/durations.py)


def category_of(definition: dict[str, Any]) -> str:
    """A (validated) definition's category: stored only when it is not the default."""
    return str(definition.get("category") or TRANSACTIONAL)


# A provider's name (workers/providers): what a node's `provider` may say.
PROVIDER_NAME = re.compile(r"^[a-z][a-z0-9_]{0,49}$")
