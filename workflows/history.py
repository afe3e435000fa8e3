"""Comparing two versions of a workflow definition: a summary in words and a line diff."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any

from workflows.definition import category_of, preference_category_of, required_of


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "add", "remove", "context" or "hunk"
    text: str


@dataclass(frozen=True)
class DefinitionDiff:
    summary: list[str]
    lines: list[DiffLine]

    @property
    def changed(self) -> bool:
        return bool(self.summary)


def _edge_key(edge: Any) -> tuple[str, str, str]:
    if not isinstance(edge, dict):
        return ("?", "?", json.dumps(edge))
    return (str(edge.get("from")), str(edge.get("to")), str(edge.get("when") or ""))


def _describe_edge(key: tuple[str, str, str]) -> str:
    source, target, when = key
    return f"{source} → {target}" + (f" when {when}" if when else "")


def definition_diff(
    old: dict[str, Any], new: dict[str, Any], *, old_label: str = "old", new_label: str = "new"
) -> DefinitionDiff:
    """What changed from `old` to `new`: entry node, nodes added/removed/changed (naming the
    fields), edges added/removed or reordered, and a unified diff of the pretty-printed JSON."""
    summary: list[str] = []
    if old.get("entry_node_id") != new.get("entry_node_id"):
        summary.append(
            f"entry node changed from {old.get('entry_node_id')} to {new.get('entry_node_id')}"
        )
    if category_of(old) != category_of(new):
        summary.append(f"category changed from {category_of(old)} to {category_of(new)}")
    if preference_category_of(old) != preference_category_of(new):
        was, now = preference_category_of(old) or "none", preference_category_of(new) or "none"
        summary.append(f"preference category changed from {was} to {now}")
    if required_of(old) != required_of(new):
        summary.append("now required" if required_of(new) else "no longer required")
    if old.get("default_locale") != new.get("default_locale"):
        was, now = old.get("default_locale") or "none", new.get("default_locale") or "none"
        summary.append(f"default locale changed from {was} to {now}")
    if old.get("default_layout") != new.get("default_layout"):
        was, now = old.get("default_layout") or "none", new.get("default_layout") or "none"
        summary.append(f"default layout changed from {was} to {now}")
    old_nodes = {n.get("id"): n for n in old.get("nodes", []) if isinstance(n, dict)}
    new_nodes = {n.get("id"): n for n in new.get("nodes", []) if isinstance(n, dict)}
    for node_id in new_nodes.keys() - old_nodes.keys():
        summary.append(f"node {node_id} added ({new_nodes[node_id].get('type')})")
    for node_id in old_nodes.keys() - new_nodes.keys():
        summary.append(f"node {node_id} removed")
    for node_id in old_nodes.keys() & new_nodes.keys():
        before, after = old_nodes[node_id], new_nodes[node_id]
        fields = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        if fields:
            summary.append(f"node {node_id} changed: {', '.join(fields)}")
    old_edges = [_edge_key(e) for e in old.get("edges", [])]
    new_edges = [_edge_key(e) for e in new.get("edges", [])]
    added = [e for e in new_edges if e not in old_edges]
    removed = [e for e in old_edges if e not in new_edges]
    summary += [f"edge {_describe_edge(e)} added" for e in added]
    summary += [f"edge {_describe_edge(e)} removed" for e in removed]
    if not added and not removed and old_edges != new_edges:
        summary.append("edges reordered (the first edge whose condition holds is taken)")
    summary.sort(key=lambda line: (not line.startswith("entry"), line))

    return DefinitionDiff(summary, json_diff_lines(old, new, old_label, new_label))


def json_diff_lines(old: Any, new: Any, old_label: str, new_label: str) -> list[DiffLine]:
    """A unified diff of `old` and `new` pretty-printed as JSON, line by line (also the
    translation catalogs' version diff in the admin, content/history.py)."""
    before_text = json.dumps(old, indent=2, ensure_ascii=False).splitlines()
    after_text = json.dumps(new, indent=2, ensure_ascii=False).splitlines()
    return text_diff_lines(before_text, after_text, old_label, new_label)


def text_diff_lines(
    before: list[str], after: list[str], old_label: str, new_label: str
) -> list[DiffLine]:
    """A unified diff of two texts given as lines, each line classed for the page."""
    lines = []
    for line in difflib.unified_diff(
        before, after, fromfile=old_label, tofile=new_label, lineterm="", n=3
    ):
        if line.startswith(("---", "+++")):
            continue
        kind = {"@": "hunk", "+": "add", "-": "remove"}.get(line[:1], "context")
        lines.append(DiffLine(kind, line))
    return lines
