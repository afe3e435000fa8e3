"""The run's database functions (triggers migration 0013) as PostgreSQL holds them, for the
tests that read their bodies or plan the statements in them."""

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


def claim_lock_sql() -> str:
    """The claim's first statement, which finds and locks the run, as installed and runnable on
    its own: the argument `run_id` is the parameter `%(id)s`."""
    body = function_definition(CLAIM_FUNCTION)
    found = re.search(r"SELECT p\.status.*?FOR UPDATE", body, re.S)
    assert found, body
    statement = found.group(0).replace(" INTO prior_status, prior_deleted", "")
    return re.sub(r"\brun_id\b", "%(id)s::uuid", statement)
