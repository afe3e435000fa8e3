"""What stands between a process and PostgreSQL, decided once per process: directly PostgreSQL,
or a connection pooler, and then whether that pooler keeps prepared statements and server-side
cursors (docs/design/deployment.md, "Behind PgBouncer").

A transaction pooler (PgBouncer's pool_mode=transaction) hands each transaction to whichever
server connection is free. What a session leaves on its server connection is then found by
someone else or not at all: a prepared statement ("prepared statement "_pg3_0" does not exist"),
a WITH HOLD cursor (QuerySet.iterator() in autocommit). PgBouncer 1.21 and later keep protocol
level prepared statements themselves when max_prepared_statements is above 0; older ones cannot.

The signal. PostgreSQL tells a client its backend's pid when the connection starts; a pooler
answers the connection itself and hands out a pid of its own (PgBouncer: a random cancel key).
So `SELECT pg_backend_pid()` differing from the pid the connection was given means a pooler.
Which pooler and in which mode is then read from its admin console (the `pgbouncer` database:
SHOW VERSION, SHOW CONFIG, SHOW DATABASES), which answers only the users PgBouncer lists in
admin_users or stats_users. When it does not answer, the pooler is taken for a transaction pooler
that keeps nothing: prepared statements and server-side cursors go off, and the log line says
how to say otherwise (DATABASE_POOLER, DATABASE_PREPARED_STATEMENTS in settings.py).

The cost: the first connection of a process to a database pays one round trip (and, behind a
pooler, one short connection to its console); every later connection only looks up the answer.
Nothing runs per query or per step.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import psycopg
from django.conf import settings

logger = logging.getLogger("notiflow.db")

# PgBouncer's first version that keeps protocol-level prepared statements in transaction mode
# (with max_prepared_statements > 0).
PGBOUNCER_PREPARED_SINCE = (1, 21)
CONSOLE_DATABASE = "pgbouncer"
CONSOLE_TIMEOUT_SECONDS = 3
# Connection parameters the console does not take or need (Django's and psycopg's own, and
# startup options PgBouncer refuses on its console).
_NOT_FOR_CONSOLE = ("cursor_factory", "context", "prepare_threshold", "autocommit", "options")

_lock = threading.Lock()
_found: dict[tuple[str, ...], Pooler] = {}


@dataclass(frozen=True)
class Pooler:
    """What one database address turned out to be."""

    address: str
    between: bool  # something other than PostgreSQL answered the connection
    version: str = ""  # SHOW VERSION's answer, e.g. "PgBouncer 1.18.0"; empty when unread
    pool_mode: str = ""  # session, transaction or statement; empty when unread
    max_prepared_statements: int = 0
    console_error: str = ""

    @property
    def pools_transactions(self) -> bool:
        """Server connections change hands between transactions (or may: a pooler whose mode
        could not be read is taken for one)."""
        return self.between and self.pool_mode != "session"

    @property
    def keeps_prepared_statements(self) -> bool:
        if not self.pools_transactions:
            return True
        match = re.match(r"PgBouncer (\d+)\.(\d+)", self.version)
        if match is None:
            return False
        version = (int(match[1]), int(match[2]))
        return version >= PGBOUNCER_PREPARED_SINCE and self.max_prepared_statements > 0


def pooler_detect(
    *, params: Mapping[str, Any], connection: psycopg.Connection[Any] | None = None
) -> Pooler:
    """The pooler (or none) at the address of `params` (psycopg connection parameters), probed
    on `connection` (open on those parameters) or on a short connection of its own. Probed once
    per process and address, and logged then; later calls return the first answer."""
    key = tuple(str(params.get(name, "")) for name in ("host", "port", "dbname", "user"))
    with _lock:
        pooler = _found.get(key)
        if pooler is None:
            if connection is None:
                with psycopg.connect(**_without(params, _NOT_FOR_CONSOLE)) as own:
                    pooler = _probe(own, params)
            else:
                pooler = _probe(connection, params)
            _found[key] = pooler
            _log(pooler)
    return pooler


def pooler_forget() -> None:
    """Probe again at the next connection (tests; a process whose database moved)."""
    with _lock:
        _found.clear()


def prepared_statements_on(pooler: Pooler) -> bool:
    """DATABASE_PREPARED_STATEMENTS applied to what was found: `auto` keeps them where they work."""
    choice = settings.DATABASE_PREPARED_STATEMENTS
    return choice == "true" or (choice == "auto" and pooler.keeps_prepared_statements)


def connection_configure(*, connection: Any) -> None:
    """On each new Django connection (connection_created), when DATABASE_POOLER is `auto`:
    prepared statements off where the pooler cannot keep them (psycopg prepares nothing, not
    even `execute(..., prepare=True)`, while prepare_threshold is None), and server-side cursors
    off behind transaction pooling (Django's DISABLE_SERVER_SIDE_CURSORS)."""
    if settings.DATABASE_POOLER != "auto" or connection.vendor != "postgresql":
        return
    raw = connection.connection
    pooler = pooler_detect(params=connection.get_connection_params(), connection=raw)
    if not prepared_statements_on(pooler):
        raw.prepare_threshold = None
    if pooler.pools_transactions:
        connection.settings_dict["DISABLE_SERVER_SIDE_CURSORS"] = True


def _probe(connection: psycopg.Connection[Any], params: Mapping[str, Any]) -> Pooler:
    address = f"{params.get('host') or 'localhost'}:{params.get('port') or 5432}"
    row = connection.execute("SELECT pg_backend_pid()").fetchone()
    if not connection.autocommit:
        connection.rollback()
    if row is not None and row[0] == connection.info.backend_pid:
        return Pooler(address=address, between=False)
    console = {**_without(params, _NOT_FOR_CONSOLE), "dbname": CONSOLE_DATABASE}
    console["connect_timeout"] = min(
        int(console.get("connect_timeout") or CONSOLE_TIMEOUT_SECONDS), CONSOLE_TIMEOUT_SECONDS
    )
    try:
        with psycopg.connect(**console, autocommit=True) as admin:
            version = str(_rows(admin, "SHOW VERSION")[0]["version"])
            config = {row["key"]: row["value"] for row in _rows(admin, "SHOW CONFIG")}
            databases = {row["name"]: row for row in _rows(admin, "SHOW DATABASES")}
    except (psycopg.Error, IndexError, KeyError) as exc:
        return Pooler(address=address, between=True, console_error=str(exc).strip() or repr(exc))
    # A database's own pool_mode overrides the global one.
    database = databases.get(str(params.get("dbname"))) or databases.get("*") or {}
    return Pooler(
        address=address,
        between=True,
        version=version,
        pool_mode=str(database.get("pool_mode") or config.get("pool_mode") or ""),
        max_prepared_statements=int(config.get("max_prepared_statements") or 0),
    )


def _rows(connection: psycopg.Connection[Any], command: str) -> list[dict[str, Any]]:
    cursor = connection.execute(command)
    names = [column.name for column in cursor.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _without(params: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {name: value for name, value in params.items() if name not in names}


def _log(pooler: Pooler) -> None:
    if not pooler.between:
        return
    prepared = "on" if prepared_statements_on(pooler) else "off"
    cursors = "off" if pooler.pools_transactions else "on"
    if pooler.version:
        what = f"{pooler.version} in {pooler.pool_mode or 'an unknown'} mode at {pooler.address}"
    else:
        what = (
            f"a connection pooler at {pooler.address} whose admin console did not answer "
            f"({pooler.console_error.splitlines()[0]}), taken for transaction pooling"
        )
    why = ""
    if prepared == "off" and settings.DATABASE_PREPARED_STATEMENTS == "auto":
        why = (
            " (they need PgBouncer >= 1.21 with max_prepared_statements > 0; "
            "DATABASE_PREPARED_STATEMENTS=true if yours keeps them)"
        )
    level = logging.WARNING if prepared == "off" else logging.INFO
    logger.log(
        level, "%s: prepared statements %s%s, server-side cursors %s", what, prepared, why, cursors
    )
