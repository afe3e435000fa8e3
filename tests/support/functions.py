"""The project's database functions as PostgreSQL holds them, for the tests that read their
bodies or plan the statements in them."""

from __future__ import annotations

import re

from django.db import connection

from triggers.sql import CLAIM_FUNCTION


def function_definition(name: str) -> str:
    """`CREATE OR REPLACE FUNCTION ...` of the function `name`, as installed."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_functiondef(p.oid) FROM pg_proc p WHERE p.proname = %s", [name]
        )
        rows = cursor.fetchall()
    assert len(rows) == 1, f"{name}: {len(rows)} functions"
    return rows[0][0]


def installed_functions() -> list[str]:
    """Every function of this project's schema (`notiflow_*`), as PostgreSQL holds them."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT proname FROM pg_proc WHERE proname LIKE 'notiflow\\_%%' ORDER BY 1")
        return [row[0] for row in cursor.fetchall()]


def superseded(names: list[str]) -> set[str]:
    """The versioned functions (`<name>_v<n>`) of `names` of which a later version is among them:
    kept only for the statements workers of a previous release prepared (docs/design/run.md,
    "Versioned by name"), called by nothing of this one."""
    versions: dict[str, list[int]] = {}
    for name in names:
        found = re.fullmatch(r"(.+)_v(\d+)", name)
        if found:
            versions.setdefault(found.group(1), []).append(int(found.group(2)))
    return {
        f"{stem}_v{n}" for stem, numbers in versions.items() for n in numbers if n < max(numbers)
    }


def claim_lock_sql() -> str:
    """The claim's first statement, which finds and locks the run, as installed and runnable on
    its own: the argument `run_id` is the parameter `%(id)s`."""
    body = function_definition(CLAIM_FUNCTION)
    found = re.search(r"SELECT p\.status.*?FOR UPDATE", body, re.S)
    assert found, body
    statement = found.group(0).replace(" INTO prior_status, prior_deleted", "")
    return re.sub(r"\brun_id\b", "%(id)s::uuid", statement)
