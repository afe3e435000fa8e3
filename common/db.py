"""The database on the hot paths: prepared statements, and no health-check ping on a connection
that was fine moments ago.

Prepared statements (claim, send ledger, step outcome, intake).

Django's PostgreSQL cursors bind parameters on the client (psycopg's ClientCursor), so every
execution sends new SQL text that PostgreSQL parses and plans again; for the engine's CTEs that
planning was half of the database's CPU per step (docs/performance/optimisations.md). `fetchone_prepared()` runs its statement on a
server-binding psycopg cursor on Django's own connection: same transaction and autocommit state,
same type adapters, Django's exception classes, prepared: PostgreSQL plans each statement once
per connection and runs it from the plan afterwards.

It keeps what matters of Django's cursor wrapper: `connection.execute_wrappers` (tracing, query
counting) and the DEBUG query log. Behind a pooler that cannot keep prepared statements (PgBouncer
before 1.21 in transaction mode) each process switches them off at its first connection
(common/pooler.py: prepare_threshold None, which psycopg honours over prepare=True); the
statements then bind on the server unprepared. DATABASE_PREPARED_STATEMENTS overrides it.

The ping. With CONN_HEALTH_CHECKS, Django pings a kept connection (`SELECT 1`, one round trip)
before its first query in every request, and our Celery hooks do the same per task: under load
that was one round trip in four per engine step and a fifth of an intake request's time.
`connection_reuse_begin()` (at the start of a request or task, after Django's
close_old_connections) skips the ping when the connection ended its last request or task without
error less than HEALTH_CHECK_IDLE_SECONDS ago (`connection_reuse_end()` notes that). A connection
that died in between fails that one request or task; Django then drops it, and the next one
reconnects (a task's trigger is nudged again by the sweeper).
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import psycopg
from django.db import connection
from django.http import HttpRequest, HttpResponse

HEALTH_CHECK_IDLE_SECONDS = 1.0
# When this thread's connection last ended a request or task without error (connections are
# per thread, and so is this).
_last_ok = threading.local()
# The cursor of the prepared statements: psycopg's own, or with tracing on (common/tracing.py)
# one that gives each statement its span.
_prepared_cursor: type[psycopg.Cursor] = psycopg.Cursor


def prepared_cursor_set(cursor_class: type[psycopg.Cursor]) -> None:
    """Run the prepared statements on cursors of `cursor_class` (a psycopg.Cursor) from now on."""
    global _prepared_cursor
    _prepared_cursor = cursor_class


def fetchone_prepared(sql: str, params: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """Run one statement (prepared, see the module) on the default connection; its first row."""
    return _run_prepared(sql, params, psycopg.Cursor.fetchone)


def fetchall_prepared(sql: str, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """Run one statement (prepared, see the module) on the default connection; all its rows."""
    return _run_prepared(sql, params, psycopg.Cursor.fetchall)


def _run_prepared(
    sql: str, params: Mapping[str, Any], fetch: Callable[[psycopg.Cursor], Any]
) -> Any:
    """Run one statement (prepared) on the default connection and `fetch` its result.

    Like Django's own cursor, it runs through `connection.execute_wrappers` (what
    `connection.execute_wrapper()` installs: tracing, query counting, timeouts) and, when
    queries are logged (DEBUG, assertNumQueries), into `connection.queries_log`.
    """
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_no_broken_transaction()
    with connection.wrap_database_errors, _prepared_cursor(connection.connection) as cursor:

        def execute(sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
            cursor.execute(sql, params, prepare=True)
            return fetch(cursor)

        # As django.db.backends.utils.CursorWrapper._execute_with_wrappers: the last wrapper
        # installed is the outermost.
        run = functools.reduce(
            lambda inner, wrapper: functools.partial(wrapper, inner),
            connection.execute_wrappers,
            execute,
        )
        context = {"connection": connection, "cursor": cursor}
        if not connection.queries_logged:
            return run(sql, params, False, context)
        started = time.monotonic()
        try:
            return run(sql, params, False, context)
        finally:
            spent = time.monotonic() - started
            connection.queries_log.append({"sql": sql, "time": f"{spent:.3f}"})


def connection_reuse_begin() -> None:
    """Skip the coming health check if the connection was fine moments ago (see the module)."""
    last_ok = getattr(_last_ok, "at", None)
    if (
        connection.connection is not None
        and last_ok is not None
        and time.monotonic() - last_ok < HEALTH_CHECK_IDLE_SECONDS
    ):
        connection.health_check_done = True  # type: ignore[attr-defined]  # (Django 4.1+, not in the stubs)


def connection_reuse_end() -> None:
    """Note that the connection ended a request or task without error."""
    if connection.connection is not None and not connection.errors_occurred:
        _last_ok.at = time.monotonic()


class ConnectionReuseMiddleware:
    """connection_reuse_begin/end around every request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        connection_reuse_begin()
        response = self.get_response(request)
        connection_reuse_end()
        return response
