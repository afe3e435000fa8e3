"""Celery's routine lines about the periodic tasks, left out of the logs.

Celery logs "Task ... received" and "Task ... succeeded" at INFO for every task, and beat logs
"Scheduler: Sending due task ..." for every tick: with the sweepers due every few seconds they
were 1,072 of 2,629 lines of `make run`'s log, burying the lines about runs. The sweep tasks log
what they did when they did something (workers/tasks.py, events/tasks.py); a failing one is still
logged (WARNING and above pass), and so is every other task. settings.LOGGING puts this filter on
the three Celery loggers that write those lines: celery.worker.strategy and celery.app.trace (the
task's name in `record.data`), celery.beat (in the record's arguments).
"""

from __future__ import annotations

import logging
from typing import Any


def periodic_task_names() -> frozenset[str]:
    """The tasks beat sends (settings.CELERY_BEAT_SCHEDULE)."""
    from django.conf import settings

    return frozenset(str(entry["task"]) for entry in settings.CELERY_BEAT_SCHEDULE.values())


def _task_name(record: logging.LogRecord) -> Any:
    data = getattr(record, "data", None)
    if isinstance(data, dict):
        return data.get("name")
    # beat: info("Scheduler: Sending due task %s (%s)", entry.name, entry.task)
    if record.name == "celery.beat" and isinstance(record.args, tuple) and len(record.args) == 2:
        return record.args[1]
    return None


class QuietPeriodicTasks(logging.Filter):
    """Drops Celery's INFO (and lower) lines about a periodic task; keeps everything else."""

    def __init__(self) -> None:
        super().__init__()
        self._names: frozenset[str] | None = None  # read once settings are ready

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO:
            return True
        if self._names is None:
            self._names = periodic_task_names()
        return _task_name(record) not in self._names
