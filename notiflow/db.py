"""Prepared statements for the hot paths (claim, send ledger, step outcome, intake).

Django's PostgreSQL cursors bind parameters on the client (psycopg's ClientCursor), so every
execution sends new SQL text that PostgreSQL parses and plans again; for the engine's CTEs that
planning was half of the database's CPU per step (BENCHMARKS.md). `fetchone_prepared()` runs its statement on a
server-binding psycopg cursor on Django's own connection: same transaction and autocommit state,
same type adapters, Django's exception classes, prepared: PostgreSQL plans each statement once
per connection and runs it from the plan afterwards.

What it skips of Django's cursor wrapper: `connection.execute_wrappers` and the DEBUG query log.
Behind a pooler that cannot keep prepared statements (PgBouncer before 1.21 in transaction
mode), set DATABASE_PREPARED_STATEMENTS=false (settings.py): the statements then bind on the
server unprepared.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import psycopg
from django.db import connection


def fetchone_prepared(sql: str, params: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """Run one statement (prepared, see the module) on the default connection; its first row."""
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_no_broken_transaction()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params, prepare=True)
        return cursor.fetchone()
