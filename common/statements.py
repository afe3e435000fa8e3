"""Statements written whole in `.sql` files and loaded by name, in the manner of River's
`dbsqlc/*.sql` (docs/design/index.md, "Stack and layout": each statement readable whole in one
place). An app keeps its files in `statements/` beside its modules; the text of a file is the
statement PostgreSQL receives, its parameters `%(name)s`, its tables named as they are and its
statuses as parameters (tests/test_sql_homes.py holds both to the models).

Nothing is filled into a file: a statement that differs by a clause is a second file."""

from __future__ import annotations

from functools import cache
from pathlib import Path


@cache
def statement_load(module_file: str, name: str) -> str:
    """The statement of `statements/<name>.sql` beside the module whose `__file__` is
    `module_file`; a missing file fails at import of the module that names it."""
    return (Path(module_file).parent / "statements" / f"{name}.sql").read_text()


def statement_files(module_file: str) -> list[Path]:
    """Every statement file beside the module `module_file` (the tests read them all)."""
    return sorted((Path(module_file).parent / "statements").glob("*.sql"))
