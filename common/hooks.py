"""Hooks: how a room below calls a room above without importing it (docs/design/hooks.md, "Hooks").

A hook is declared once, as a `Hook` in the `hooks.py` of the app that calls it. An app above
adds its functions in its own `hooks.py`, in `register()`, which its AppConfig.ready calls: so
every hook an app offers, and every function it adds to another app's, is in that one module.
docs/design/hooks.md lists each hook with who registers and who calls; tests/test_hooks.py fails when
a hook is declared or registered that the list does not name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Generic, TypeVar

F = TypeVar("F")


class Hook(Generic[F]):
    """The functions registered, called in the order they were registered."""

    def __init__(self) -> None:
        self.functions: list[F] = []
        DECLARED.append(self)

    def register(self, function: F) -> None:
        """Add `function`; once only (a second `ready`, as tests and reloads run, adds nothing)."""
        if function not in self.functions:
            self.functions.append(function)

    def __iter__(self) -> Iterator[F]:
        return iter(tuple(self.functions))


# Every Hook made, wherever it was made: tests/test_hooks.py finds each in an app's hooks.py.
DECLARED: list[Hook[Any]] = []
