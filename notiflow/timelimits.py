"""The task time limits of the project's own, for the pools where Celery enforces none.

Celery enforces CELERY_TASK_SOFT_TIME_LIMIT and CELERY_TASK_TIME_LIMIT under prefork only; those
limits are what keep a live step inside its lease (docs/design/run.md, "The claim and the release").
Under the threads or solo pool a watchdog thread does it instead (notiflow/celery.py starts it
when the worker's pool is not prefork):

- past the soft limit, the task's thread gets SoftTimeLimitExceeded raised in it (as prefork's
  soft limit does, by signal there); a thread blocked in a socket call receives it when the call
  returns, which every provider call does within its own timeout (EMAIL_TIMEOUT, ...);
- past the hard limit, the task is still running: the worker process exits at once (os._exit),
  as prefork's hard limit kills the pool process. Its other steps stop with it and are reclaimed
  when their leases expire: no step outlives its lease.
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from celery.exceptions import SoftTimeLimitExceeded

logger = logging.getLogger(__name__)


@dataclass
class _Running:
    started: float
    soft_sent: bool = False


class Watchdog:
    def __init__(
        self,
        soft: float,
        hard: float,
        *,
        interval: float = 0.25,
        exit_process: Callable[[], None] = lambda: os._exit(1),
    ) -> None:
        self.soft, self.hard, self.interval = soft, hard, interval
        self.exit_process = exit_process
        self.running: dict[int, _Running] = {}
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.stopped = threading.Event()

    def task_started(self) -> None:
        with self.lock:
            self.running[threading.get_ident()] = _Running(time.monotonic())

    def task_ended(self) -> None:
        ident = threading.get_ident()
        with self.lock:
            running = self.running.pop(ident, None)
            if running is not None and running.soft_sent:
                # Not delivered before the task ended (it caught it, or it was on its way out):
                # cleared, so that it cannot land in the worker's own code.
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), None)

    def start(self) -> None:
        self.thread = threading.Thread(target=self._watch, name="notiflow-time-limits", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()

    def check(self) -> None:
        now = time.monotonic()
        with self.lock:  # under it, so that the task cannot end between the look and the raise
            for ident, running in self.running.items():
                age = now - running.started
                if age >= self.hard:
                    logger.critical(
                        "a task ran %.0f s, past CELERY_TASK_TIME_LIMIT (%s s): the worker exits "
                        "so that no step outlives its lease",
                        age,
                        self.hard,
                    )
                    self.exit_process()
                    return
                if age >= self.soft and not running.soft_sent:
                    running.soft_sent = True
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(
                        ctypes.c_ulong(ident), ctypes.py_object(SoftTimeLimitExceeded)
                    )

    def _watch(self) -> None:
        while not self.stopped.wait(self.interval):
            self.check()


watchdog: Watchdog | None = None


def pool_enforces_limits(pool: object) -> bool:
    """Whether Celery enforces the time limits under this pool (a name or a class)."""
    return "prefork" in str(pool).lower()
