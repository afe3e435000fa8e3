"""`GET /api/triggers/<id>/?wait=<seconds>`: answer once the trigger is finished (completed,
failed or cancelled) or the wait is over, whichever comes first (docs/design/api.md, "Waiting for a
trigger").

No thread and no database connection is held per waiting client. Under the web process's ASGI
adapter (common/asgi.py) the view does not wait: it notes the trigger and the wait in the
request's `WaitSlot` (an object the adapter puts in the WSGI environ under WAIT_ENVIRON_KEY; a
client can set only `HTTP_*` keys, never this one) and answers at once. The adapter then throws
that answer away, frees the thread, awaits this process's `TerminalWaiter`, and sends the
request to Django again with a slot that says "answer now". Authentication, the 404 and the
rendering therefore stay in the view.

The `TerminalWaiter` is one asyncio task and one PostgreSQL connection per web process, polling
only while someone waits: one primary-key query (triggers/sql.py, WAIT_TERMINAL_SQL) for every
waited-for trigger every NOTIFLOW_WAIT_POLL_SECONDS. It costs the engine nothing (no NOTIFY in
the release statement) and cannot miss a change across a reconnect. When the database does not
answer it logs, drops its connection and tries again; its clients are answered at their
deadline, by the view, as the view answers when the database is down.

Without the adapter (runserver, Django's test client, a WSGI server) the view itself polls the
database every NOTIFLOW_WAIT_POLL_SECONDS until the deadline, holding its thread: the same
answers, at the cost the adapter exists to avoid.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import psycopg
from django.conf import settings
from rest_framework.exceptions import ValidationError

from triggers.models import TERMINAL_STATUSES, TriggerInstance
from triggers.selectors import trigger_list
from triggers.sql import WAIT_TERMINAL_SQL

logger = logging.getLogger(__name__)

MAX_WAIT_SECONDS = 30
# The WSGI environ key of the request's WaitSlot. Not an HTTP_* key: no request header can set it.
WAIT_ENVIRON_KEY = "notiflow.wait"
# After a failed poll, the waiter tries again this much later (or after its interval, if longer).
RETRY_AFTER_FAILURE_SECONDS = 1.0


def wait_seconds(params: Mapping[str, str]) -> float:
    """`?wait=` as seconds (0 when absent); a 400 naming `wait` unless 0 <= wait <= 30."""
    raw = params.get("wait")
    if raw is None:
        return 0.0
    message = f"must be a number of seconds from 0 to {MAX_WAIT_SECONDS}"
    try:
        seconds = float(raw)
    except ValueError:
        raise ValidationError({"wait": [message]}) from None
    if not math.isfinite(seconds) or not 0 <= seconds <= MAX_WAIT_SECONDS:
        raise ValidationError({"wait": [message]})
    return seconds


@dataclass
class WaitSlot:
    """The adapter's side of a request (see the module). `redispatch` False: the view may defer
    (`defer`); True: this is the request sent again after the wait, answer now."""

    redispatch: bool = False
    trigger_id: uuid.UUID | None = None
    seconds: float = 0.0

    def defer(self, trigger_id: uuid.UUID, seconds: float) -> None:
        self.trigger_id = trigger_id
        self.seconds = seconds


def trigger_wait(
    environ: Mapping[str, Any], trigger: TriggerInstance, seconds: float
) -> TriggerInstance:
    """The trigger to answer with, for a request that asked to wait `seconds` for it."""
    if seconds <= 0 or trigger.is_terminal:
        return trigger
    slot = environ.get(WAIT_ENVIRON_KEY)
    if isinstance(slot, WaitSlot):
        if not slot.redispatch:
            slot.defer(trigger.pk, seconds)  # the adapter waits, then asks again
        return trigger
    # No adapter: wait here, holding this thread (see the module).
    deadline = time.monotonic() + seconds
    while not trigger.is_terminal:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        time.sleep(min(settings.NOTIFLOW_WAIT_POLL_SECONDS, remaining))
        trigger = trigger_list().get(pk=trigger.pk)
    return trigger


def waiter_connection_params() -> dict[str, Any]:
    """The waiter's connection: the default database's, as Django would connect, autocommit."""
    from django.db import connection

    params: dict[str, Any] = dict(connection.get_connection_params())
    # Django's own cursor class and adapters are for its synchronous connections.
    for key in ("cursor_factory", "context"):
        params.pop(key, None)
    params["application_name"] = "notiflow-web-waiter"
    params["autocommit"] = True
    return params


def _prepared_statements_on(params: Mapping[str, Any]) -> bool:
    """As on Django's connections (common/pooler.py): off behind a pooler that cannot keep
    them. Probed once per process (in a thread: it may open a connection of its own)."""
    from common.pooler import pooler_detect, prepared_statements_on

    if settings.DATABASE_POOLER != "auto":
        return params.get("prepare_threshold") is not None
    return prepared_statements_on(pooler_detect(params=params))


class TerminalWaiter:
    """Wakes the waiting clients of one web process when their trigger is finished (see the
    module). Runs on that process's event loop; `wait` is its one entry point."""

    def __init__(self, *, interval: float, connection_params: Mapping[str, Any]):
        self.interval = interval
        self._params = dict(connection_params)
        self._waiting: dict[uuid.UUID, set[asyncio.Future[None]]] = {}
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._connection: psycopg.AsyncConnection[Any] | None = None
        self._failing = False
        # Counters for tests and measurements.
        self.polls = 0
        self.failures = 0

    @property
    def waiting(self) -> int:
        return sum(len(futures) for futures in self._waiting.values())

    async def wait(self, trigger_id: uuid.UUID, timeout: float) -> bool:
        """Until the trigger is finished (True) or `timeout` seconds have passed (False)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(trigger_id, set()).add(future)
        self._start()
        try:
            await asyncio.wait_for(future, timeout)
            return True
        except TimeoutError:
            return False
        finally:
            futures = self._waiting.get(trigger_id)
            if futures is not None:
                futures.discard(future)
                if not futures:
                    del self._waiting[trigger_id]

    def _start(self) -> None:
        if self._wake is None:
            self._wake = asyncio.Event()
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="wait-poll")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._disconnect()

    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            if not self._waiting:
                self._wake.clear()
                await self._wake.wait()
                continue
            try:
                finished = await self._poll(list(self._waiting))
            except Exception:
                self.failures += 1
                if not self._failing:
                    logger.warning(
                        "waiting clients: the poll failed; they are answered at their deadline "
                        "until it works again",
                        exc_info=True,
                    )
                self._failing = True
                await self._disconnect()
                await asyncio.sleep(max(self.interval, RETRY_AFTER_FAILURE_SECONDS))
                continue
            if self._failing:
                logger.info("waiting clients: the poll works again")
                self._failing = False
            for trigger_id in finished:
                for future in self._waiting.pop(trigger_id, ()):
                    if not future.done():
                        future.set_result(None)
            await asyncio.sleep(self.interval)

    async def _poll(self, ids: list[uuid.UUID]) -> list[uuid.UUID]:
        if self._connection is None or self._connection.closed:
            self._connection = await psycopg.AsyncConnection.connect(**self._params)
            if not await asyncio.to_thread(_prepared_statements_on, self._params):
                self._connection.prepare_threshold = None
        self.polls += 1
        cursor = await self._connection.execute(
            WAIT_TERMINAL_SQL,
            {"ids": ids, "terminal": [str(status) for status in TERMINAL_STATUSES]},
            prepare=True,
        )
        return [row[0] for row in await cursor.fetchall()]

    async def _disconnect(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            # A broken connection has nothing left to close.
            with contextlib.suppress(Exception):
                await connection.close()
