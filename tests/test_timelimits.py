"""The time limits of the project's own under the threads and solo pools (notiflow/timelimits.py):
the soft limit raises in the task's thread, the hard limit ends the process."""

from __future__ import annotations

import threading
import time

from celery.concurrency.prefork import TaskPool as PreforkPool
from celery.concurrency.thread import TaskPool as ThreadsPool
from celery.exceptions import SoftTimeLimitExceeded

from notiflow.timelimits import Watchdog, pool_enforces_limits


def test_only_prefork_has_celery_enforce_the_limits():
    assert pool_enforces_limits("prefork") and pool_enforces_limits(PreforkPool)
    assert not pool_enforces_limits("threads") and not pool_enforces_limits(ThreadsPool)
    assert not pool_enforces_limits("solo")


def test_past_the_soft_limit_the_task_thread_gets_soft_time_limit_exceeded():
    watchdog = Watchdog(0.2, 30, interval=0.02)
    watchdog.start()
    seen: list[float] = []

    def task() -> None:
        watchdog.task_started()
        started = time.monotonic()
        try:
            while time.monotonic() - started < 10:  # a step that would run on
                time.sleep(0.01)
        except SoftTimeLimitExceeded:
            seen.append(time.monotonic() - started)
        finally:
            watchdog.task_ended()

    thread = threading.Thread(target=task)
    thread.start()
    thread.join(timeout=15)
    watchdog.stop()
    assert seen and 0.2 <= seen[0] < 2, seen


def test_a_task_that_ends_in_time_gets_nothing():
    watchdog = Watchdog(0.3, 30, interval=0.02)
    watchdog.start()
    watchdog.task_started()
    time.sleep(0.05)
    watchdog.task_ended()
    time.sleep(0.5)  # well past the soft limit: nothing raised here
    watchdog.stop()
    assert watchdog.running == {}


def test_past_the_hard_limit_the_process_exits():
    exited, released = threading.Event(), threading.Event()
    watchdog = Watchdog(0.1, 0.3, interval=0.02, exit_process=exited.set)
    watchdog.start()

    def blocked() -> None:
        watchdog.task_started()
        try:
            # Blocked in a call (up to 3 s): the soft limit cannot land until it returns.
            released.wait(timeout=3)
        except SoftTimeLimitExceeded:
            pass
        finally:
            watchdog.task_ended()

    thread = threading.Thread(target=blocked)
    started = time.monotonic()
    thread.start()
    assert exited.wait(timeout=2.5)
    assert 0.3 <= time.monotonic() - started < 2.5
    released.set()
    watchdog.stop()
    thread.join(timeout=5)
