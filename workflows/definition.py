"""What a workflow definition may contain besides its node types (workflows.nodes, the registry):
its category, its preference category and whether it is required, provider names, delay durations
and their limits."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from common.durations import duration_parse
from workflows.hooks import CATEGORY_EXISTS

MAX_DELAY = timedelta(days=365)
FLOW_KEY_MAX = 500  # the longest rendered throttle or digest key (their state's `key` column)


# A workflow's category (docs/design/deliveries.md, "Suppression and unsubscribe"): marketing email carries
# a one-click unsubscribe and respects marketing-only suppressions; transactional mail neither.
TRANSACTIONAL, MARKETING = "transactional", "marketing"
CATEGORIES = (TRANSACTIONAL, MARKETING)

__all__ = ["duration_parse"]  # delays and windows are durations (common/durations.py)


def category_of(definition: dict[str, Any]) -> str:
    """A (validated) definition's category: stored only when it is not the default."""
    return str(definition.get("category") or TRANSACTIONAL)


# A workflow's preference category (docs/design/recipients.md, "Preferences"): the slug of a category the
# operator made (recipients.Category: `billing`, `comments`), which a person's preferences turn
# on or off per channel. Beside `category`, not instead of it: a newsletter is marketing (its
# one-click unsubscribe) *and* in the person's `product-updates`. A marketing workflow that
# names none is in the `marketing` category. `required: true` (password resets, receipts): no
# preference turns its sends off; suppressions still apply.
PREFERENCE_CATEGORY = re.compile(r"^[a-z0-9][a-z0-9_-]{0,99}$")
MARKETING_CATEGORY = "marketing"


def preference_category_of(definition: dict[str, Any]) -> str:
    """A (validated) definition's preference category: `preference_category`, else `marketing`
    for a marketing workflow, else "" (no category: only channel and workflow preferences)."""
    named = str(definition.get("preference_category") or "")
    if named:
        return named
    return MARKETING_CATEGORY if category_of(definition) == MARKETING else ""


def required_of(definition: dict[str, Any]) -> bool:
    """Whether a (validated) definition's sends ignore preferences: stored only when true."""
    return definition.get("required") is True


def preference_problems(definition: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, message) for each problem of `preference_category` and `required`."""
    problems: list[tuple[str, str]] = []
    slug = definition.get("preference_category")
    if slug not in (None, ""):
        if not isinstance(slug, str) or not PREFERENCE_CATEGORY.match(slug):
            problems.append(
                ("preference_category", "must be a slug: a-z, 0-9, - and _, at most 100")
            )
        elif not all(exists(slug) for exists in CATEGORY_EXISTS):
            problems.append(
                (
                    "preference_category",
                    f"unknown category {slug!r}: an operator makes it first (admin, Categories)",
                )
            )
    if definition.get("required") not in (None, True, False):
        problems.append(("required", "must be true or false"))
    return problems


# A provider's name (workers/providers): what a node's `provider` may say.
PROVIDER_NAME = re.compile(r"^[a-z][a-z0-9_]{0,49}$")
