"""The markers `make test-fast` leaves out (e2e, browser, chaos, slow) follow what a test uses, not what
its author remembered (tests/conftest.py, pytest_collection_modifyitems)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from _pytest.mark.expression import Expression

from tests import conftest

TESTS = Path(conftest.__file__).resolve().parent


def marked(fixturenames: list[str], path: Path) -> set[str]:
    """The markers the hook gives a test that uses `fixturenames` (its whole fixture closure, as
    pytest computes it) and lives at `path`."""
    added: list[pytest.MarkDecorator] = []
    item = SimpleNamespace(fixturenames=fixturenames, path=path, add_marker=added.append)
    conftest.pytest_collection_modifyitems(None, [item])  # type: ignore[list-item]
    return {marker.name for marker in added}


@pytest.mark.parametrize(
    ("closure", "expected"),
    [
        (["api", "e2e", "stack", "django_db_setup"], {"e2e"}),
        (["operator", "e2e", "stack"], {"e2e"}),
        (["e2e", "stack", "smtp_server", "browser_page"], {"e2e", "browser"}),
        (["db", "api_client", "smtp_server"], set()),
    ],
)
def test_tests_on_the_stack_or_in_a_browser_are_marked(closure, expected):
    assert marked(closure, TESTS / "workers" / "test_new.py") == expected


def test_tests_under_tests_chaos_are_marked_chaos():
    assert marked([], TESTS / "chaos" / "test_new.py") == {"chaos"}
    assert marked([], TESTS / "test_chaos_named_but_elsewhere.py") == set()


@pytest.fixture
def leaf() -> str:
    return "leaf"


@pytest.fixture
def middle(leaf: str) -> str:
    return leaf


def test_an_items_fixturenames_hold_the_fixtures_it_uses_indirectly(request, middle):
    """What the hook relies on: `api` and `operator` reach `stack` through `e2e`, as `middle`
    reaches `leaf` here."""
    assert "leaf" in request.node.fixturenames


def test_tests_in_the_slow_modules_are_marked_slow_and_each_module_exists():
    for module in conftest.SLOW_MODULES:
        assert module.is_file(), f"{module} is gone: SLOW_MODULES names it"
        assert marked([], module) == {"slow"}
    assert marked([], TESTS / "workflows" / "test_new.py") == set()


def selections_of(target: str) -> list[Expression] | None:
    """The marker expressions of the Makefile `target`'s pytest runs; None where one of its runs
    selects by no marker (the whole suite)."""
    makefile = (TESTS.parent / "Makefile").read_text()
    recipe = makefile.split(f"\n{target}: ", 1)[1].split("\n\n", 1)[0].replace("\\\n", " ")
    runs = [line.split("-m pytest", 1)[1] for line in recipe.splitlines() if "-m pytest" in line]
    if any(" -m " not in run for run in runs):
        return None
    found = [re.search(r' -m (?:"([^"]+)"|(\S+))', run) for run in runs]
    return [Expression.compile(m[1] or m[2]) for m in found if m]


def test_make_test_runs_every_marker_so_slow_cases_still_run():
    """A case marked `slow` (a module in SLOW_MODULES, or a big variant beside a small one kept in
    `make test-fast`) leaves the quick loop only: `make test`'s runs together select a test of
    every combination of markers (its first two split the suite by marker, and filter nothing).
    The `rabbitmq` ones (RabbitMQ restarted, `make run` on it) are `make test-rabbitmq`'s."""
    selections = selections_of("test")
    if selections is None:
        return  # a run of the whole suite
    assert len(selections) >= 2, selections
    rabbitmq = selections_of("test-rabbitmq") or []
    names = ["e2e", "browser", "chaos", "slow", "rabbitmq", "alone"]
    for marks in itertools.product([False, True], repeat=len(names)):
        has = dict(zip(names, marks, strict=True))
        runs = rabbitmq if has["rabbitmq"] else selections
        assert any(s.evaluate(lambda name, has=has, **_: has[name]) for s in runs), has
