"""Comparing two versions of a locale's catalog (the admin's version diff): the keys added,
removed and changed in words, and the line diff the workflows' version history uses."""

from __future__ import annotations

from typing import Any

from content.validation import flattened
from workflows.history import DefinitionDiff, json_diff_lines


def catalog_diff(
    old: dict[str, Any] | None, new: dict[str, Any] | None, *, old_label: str, new_label: str
) -> DefinitionDiff:
    """What changed from `old` to `new` messages (None: the catalog was deleted then), by dotted
    key (`welcome.subject`), and a unified diff of the pretty-printed JSON."""
    before, after = flattened(old or {}), flattened(new or {})
    summary = [f"{key} added" for key in after.keys() - before.keys()]
    summary += [f"{key} removed" for key in before.keys() - after.keys()]
    summary += [
        f"{key} changed" for key in before.keys() & after.keys() if before[key] != after[key]
    ]
    if (old is None) != (new is None):
        summary.append("catalog deleted" if new is None else "catalog created")
    summary.sort()
    return DefinitionDiff(summary, json_diff_lines(old, new, old_label, new_label))
