"""The sweepers run every few seconds: a sweep that did nothing leaves no line in the logs and no
task in Flower; one that did something, any other task, and any failure still do."""

from __future__ import annotations

import logging

import pytest
from celery.app import trace
from celery.beat import logger as beat_logger
from celery.worker import strategy

from deliveries import tasks as delivery_tasks
from events import tasks as event_tasks
from workers import tasks as worker_tasks

pytestmark = pytest.mark.django_db
SWEEPS = (
    "workers.sweep",
    "events.sweep",
    "workers.fanouts_sweep",
    "workers.trigger_actions_sweep",
    "workers.waits_sweep",
    "workers.schedules_sweep",
    "workers.flow_state_prune",
    "deliveries.funnel_sweep",
    "workers.step_log_partitions",
)
SWEEP_TASKS = (
    worker_tasks.sweep,
    event_tasks.sweep,
    worker_tasks.fanouts_sweep,
    worker_tasks.trigger_actions_sweep,
    worker_tasks.waits_sweep,
    worker_tasks.schedules_sweep,
    worker_tasks.flow_state_prune_run,
    delivery_tasks.funnel_sweep,
    worker_tasks.step_log_partitions,
)


def celery_lines(task_name: str) -> None:
    """What Celery writes about one run of a task, through its own loggers and formats: the
    worker's "received" and "succeeded", and beat's "Sending due task"."""
    context = {"id": "0f0e", "name": task_name, "args": "()", "kwargs": "{}"}
    strategy.logger.info(trace.LOG_RECEIVED, context, extra={"data": context})
    trace.info(trace.LOG_SUCCESS, {**context, "return_value": 0, "runtime": 0.01})
    beat_logger.info("Scheduler: Sending due task %s (%s)", "notiflow-sweeper", task_name)


def test_a_sweep_that_did_nothing_logs_nothing(caplog):
    caplog.set_level(logging.INFO)  # the level every process logs at (LOG_LEVEL)

    assert [task() for task in SWEEP_TASKS] == [0] * len(SWEEP_TASKS)
    for name in SWEEPS:
        celery_lines(name)

    assert caplog.records == []


def test_other_tasks_and_a_failing_sweep_are_still_logged(caplog):
    caplog.set_level(logging.INFO)

    celery_lines("workers.execute_node")
    context = {"id": "0f0e", "name": "workers.sweep", "exc": "OperationalError()"}
    trace.logger.error("Task %(name)s[%(id)s] raised: %(exc)s", context, extra={"data": context})

    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 4, messages
    assert "Task workers.execute_node[0f0e] received" in messages
    assert any("workers.sweep[0f0e] raised" in m for m in messages)


def test_a_sweep_that_nudged_says_so(caplog, monkeypatch):
    caplog.set_level(logging.INFO)
    monkeypatch.setattr(worker_tasks, "sweep_due", lambda: [["t1", "t2"]])

    worker_tasks.sweep()

    assert [r.getMessage() for r in caplog.records] == ["sweeper nudged 2 trigger(s)"]


def test_each_sweep_is_its_own_beat_entry_and_task():
    """One beat entry per sweep (issue 45 §3): a slow one never delays another, and each shows
    under its own name."""
    from django.conf import settings

    tasks = [str(entry["task"]) for entry in settings.CELERY_BEAT_SCHEDULE.values()]
    assert sorted(tasks) == sorted(SWEEPS) == sorted({task.name for task in SWEEP_TASKS})


@pytest.mark.parametrize("task", SWEEP_TASKS, ids=lambda task: task.name)
def test_sweeps_send_no_task_events_so_flower_does_not_list_them(task):
    # Flower's task list is made of these events and cannot hide a task by name (its search has
    # no negation: flower/utils/search.py refuses NOT and '-').
    assert task.send_events is False
    assert worker_tasks.execute_node.send_events is True
