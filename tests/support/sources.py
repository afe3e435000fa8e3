"""The project's own Python packages and their source files, for the tests that scan the code for a
rule written outside its one home (tests/test_leases.py, tests/test_rule_homes.py,
tests/test_node_types.py, tests/test_run_transitions.py). The packages are the import contracts'
`root_packages` (pyproject.toml), read from there, so a new package is scanned by all of them as
soon as the contracts know it: no list is typed twice."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.support.stack import ROOT


def _root_packages() -> tuple[str, ...]:
    with (ROOT / "pyproject.toml").open("rb") as project:
        return tuple(tomllib.load(project)["tool"]["importlinter"]["root_packages"])


PACKAGES = _root_packages()


def project_sources(*, migrations: bool = False) -> list[Path]:
    """Every .py file of the project's packages, sorted; migrations only when asked (they are
    frozen history, not places a rule can be written again)."""
    return sorted(
        path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if migrations or "migrations" not in path.relative_to(ROOT).parts
    )
