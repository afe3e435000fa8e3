"""The project's own Python packages and their source files, for the tests that scan the code for a
rule written outside its one home (tests/test_leases.py, tests/test_rule_homes.py,
tests/test_node_types.py). One list, so a new package is scanned by all of them."""

from __future__ import annotations

from pathlib import Path

from tests.support.stack import ROOT

PACKAGES = (
    "common",
    "notiflow",
    "triggers",
    "workers",
    "events",
    "deliveries",
    "inbox",
    "recipients",
    "registry",
    "workflows",
)


def project_sources(*, migrations: bool = False) -> list[Path]:
    """Every .py file of the project's packages, sorted; migrations only when asked (they are
    frozen history, not places a rule can be written again)."""
    return sorted(
        path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if migrations or "migrations" not in path.relative_to(ROOT).parts
    )
