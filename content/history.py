"""Comparing two versions of a locale's catalog, a layout or a partial (the admin's version
diff): the keys or fields added, removed and changed in words, and the line diff the workflows'
version history uses."""

from __future__ import annotations

from typing import Any

from content.validation import flattened
from workflows.history import DefinitionDiff, json_diff_lines, text_diff_lines


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


def piece_diff(
    old: dict[str, Any] | None, new: dict[str, Any] | None, *, old_label: str, new_label: str
) -> DefinitionDiff:
    """What changed from `old` to `new` of a layout or partial (None: it was deleted then), by
    field (`html changed`), and a unified diff of the fields' texts as an author wrote them
    (`_piece_lines`): a layout's HTML line by line, not one JSON string of escaped quotes."""
    before, after = old or {}, new or {}
    fields = sorted(before.keys() | after.keys())
    summary = [
        f"{field} changed"
        for field in fields
        if old is not None and new is not None and before.get(field) != after.get(field)
    ]
    if (old is None) != (new is None):
        summary.append("deleted" if new is None else "created")
    lines = text_diff_lines(
        _piece_lines(old, fields), _piece_lines(new, fields), old_label, new_label
    )
    return DefinitionDiff(summary, lines)


def _piece_lines(piece: dict[str, Any] | None, fields: list[str]) -> list[str]:
    """Each field's name, then its text indented; nothing for a deleted piece."""
    if piece is None:
        return []
    lines = []
    for field in fields:
        lines.append(f"{field}:")
        lines += [f"    {line}" for line in str(piece.get(field, "")).splitlines()]
    return lines
