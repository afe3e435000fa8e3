"""The Notiflow Celery app with every PostgreSQL message of every task written to a trace file.

`celery -A bench.traced worker` is the standard worker plus libpq tracing (PQtrace): for each
task it records the client messages sent on the task's connections and how many connections
the task opened, so `bench.queries` can count round trips, statements, transactions and
connections per step exactly as the real worker does them (Celery's Django fixup included).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from celery.signals import task_postrun, task_prerun
from django.db import connection
from django.db.backends.postgresql.base import DatabaseWrapper
from psycopg import pq

from notiflow.celery import app

__all__ = ["app"]

TRACE_DIR = Path(os.environ.get("BENCH_TRACE_DIR", "/tmp/notiflow-bench-trace"))  # noqa: S108
_state: dict[str, Any] = {"pid": None, "fd": None, "connections": 0}


def _fd() -> int:
    if _state["pid"] != os.getpid():  # a fresh prefork child: its own file
        TRACE_DIR.mkdir(parents=True, exist_ok=True)
        _state.update(
            pid=os.getpid(),
            fd=os.open(TRACE_DIR / f"{os.getpid()}.trace", os.O_WRONLY | os.O_CREAT | os.O_APPEND),
            connections=0,
        )
    return int(_state["fd"])


def _trace_on(raw: Any) -> None:
    raw.pgconn.trace(_fd())
    raw.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)


_get_new_connection = DatabaseWrapper.get_new_connection


def _traced_new_connection(self: DatabaseWrapper, conn_params: dict[str, Any]) -> Any:
    # Traced from the start, so that the set-up queries Django runs on connect are counted too.
    raw = _get_new_connection(self, conn_params)
    _fd()
    _state["connections"] += 1
    _trace_on(raw)
    return raw


@task_prerun.connect
def _on_prerun(**kwargs: Any) -> None:
    _fd()
    _state["connections"] = 0
    if connection.connection is not None:
        _trace_on(connection.connection)


@task_postrun.connect
def _on_postrun(sender: Any = None, **kwargs: Any) -> None:
    fd = _fd()
    if connection.connection is not None:
        connection.connection.pgconn.untrace()  # flushes libpq's buffer
    name = getattr(sender, "name", "?")
    os.write(fd, f"TASK\t{name}\t{_state['connections']}\n".encode())


DatabaseWrapper.get_new_connection = _traced_new_connection  # type: ignore[method-assign,assignment]
