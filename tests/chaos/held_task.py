"""A task that keeps its message unacknowledged until the test lets it go, for
tests/chaos/test_redis_restart.py. Loaded only by the worker that test starts (`--include`)."""

from __future__ import annotations

import time
from pathlib import Path

from celery import shared_task

HOLD_TASK = "tests.chaos.hold"


@shared_task(name=HOLD_TASK, acks_late=True)
def hold(started: str, release: str, limit: float = 60) -> None:
    """Say it started, then wait for `release` to exist (at most `limit` seconds)."""
    Path(started).write_text("started")
    deadline = time.monotonic() + limit
    while not Path(release).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
