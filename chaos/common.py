"""What the chaos run and the hosts run (hosts/) both do with the stack they started: ask
PostgreSQL, count the triggers not yet terminal, and wait for the processes to be up."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any, Self

import psycopg
import requests

from tests.support.stack import Stack

NOT_TERMINAL_SQL = (
    "SELECT count(*) FROM trigger_instance WHERE status NOT IN ('completed', 'failed', 'cancelled')"
)


def query(url: str, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
    """One statement on a connection of its own (the server may just have restarted)."""
    with psycopg.connect(url, connect_timeout=5, autocommit=True) as conn:
        return conn.execute(sql, params).fetchall()


def not_terminal(url: str) -> int | None:
    """Triggers in the database not yet terminal; None while PostgreSQL does not answer."""
    try:
        rows = query(url, NOT_TERMINAL_SQL)
    except psycopg.Error:
        return None
    return int(rows[0][0])


def stacks_up(stacks: Iterable[Stack], api: requests.Session, base_url: str, workers: int) -> bool:
    """Every process still running (one that exited raises, with its log) and the health
    details counting `workers` live workers. The details (with the API key) count the workers;
    the public answer names none."""
    for stack in stacks:
        for process in stack.processes:
            if process.popen.poll() is not None:
                raise RuntimeError(f"{process.name} exited early:\n{process.log()[-3000:]}")
    try:
        health = api.get(base_url + "/api/health/", timeout=2).json()
    except (requests.RequestException, ValueError):
        return False
    return bool(health.get("workers", {}).get("count", 0) >= workers)


def cleanup(steps: Iterable[Callable[[], object]], *, tag: str) -> None:
    """Run every step, whatever the earlier ones raised: each says what it could not stop."""
    for step in steps:
        try:
            step()
        except Exception as exc:  # keep cleaning up; say what could not be
            print(f"[{tag}] cleanup step failed: {exc!r}", file=sys.stderr)


class Harness:
    """Use as a context manager: `_start()` on entry, and `close()` on exit, also when the start
    itself failed halfway (whatever it had started is stopped)."""

    def _start(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
