"""Facts the README states in prose, held to the code that declares them (docs/design/rules.md rule
"no fact written twice"): where a page names the node types, it names every registered one, so
a new type cannot be forgotten there again (issue 44 found four missing from the first lines)."""

from __future__ import annotations

import re
from pathlib import Path

from workflows.nodes import NODE_TYPES

README = Path(__file__).resolve().parent.parent / "README.md"


def _opening() -> str:
    """The README's text before its first section heading."""
    return README.read_text().split("\n## ", 1)[0]


def test_the_readmes_opening_names_every_registered_node_type() -> None:
    named = set(re.findall(r"`([a-z_]+)`", _opening()))
    missing = sorted(set(NODE_TYPES) - named)
    assert not missing, f"README's first lines do not name the node types {missing}"


def test_the_readmes_opening_names_no_node_type_the_registry_lacks() -> None:
    # Every backticked word of the opening that is not a node type must be a known non-type word.
    named = set(re.findall(r"`([a-z_]+)`", _opening()))
    assert named - set(NODE_TYPES) == set(), (
        f"README names unknown node types {named - set(NODE_TYPES)}"
    )
