"""A worker's registration bootstep (workers/registration.py), driven as Celery's consumer
blueprint drives it: start once the task consumer runs, a beat per timer tick, stop on every
consumer restart, close only on the worker's shutdown. The real thing, in real workers, is in
tests/registry/test_registry_e2e.py."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from importlib import metadata
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import OperationalError, connection
from kombu import Queue

from notiflow.celery import app
from registry.models import Worker
from tests.conftest import unique
from workers import registration
from workers.registration import WorkerRegistration


@pytest.fixture(autouse=True)
def committed(django_db_setup, django_db_blocker) -> Iterator[None]:
    """Autocommit, as in a worker: the step closes and reopens its connection, which a test's
    rolled-back transaction would not survive. Each test's worker has a name of its own, and its
    row is deleted afterwards."""
    with django_db_blocker.unblock():
        yield
        Worker.objects.filter(name__startswith="unit-").delete()


@pytest.fixture
def name() -> str:
    return f"{unique('unit')}@host"


class Timer:
    """The consumer's timer: remembers what is scheduled; the test runs the beats."""

    def __init__(self) -> None:
        self.scheduled: list[tuple[float, Any]] = []

    def call_repeatedly(self, seconds: float, fun: Any, args: tuple = ()) -> Any:
        entry = SimpleNamespace(seconds=seconds, fun=fun, args=args, cancelled=False)
        entry.cancel = lambda: setattr(entry, "cancelled", True)
        self.scheduled.append(entry)
        return entry


def consumer(name: str, queues: tuple[str, ...] = ("default", "billing")) -> Any:
    return SimpleNamespace(
        hostname=name,
        task_consumer=SimpleNamespace(queues=[Queue(q) for q in queues]),
        controller=SimpleNamespace(concurrency=3, max_concurrency=None),
        timer=Timer(),
    )


def test_the_step_is_in_the_consumer_blueprint_after_the_task_consumer():
    assert "workers.registration:WorkerRegistration" in app.steps["consumer"]
    assert WorkerRegistration.requires == ("celery.worker.consumer.tasks:Tasks",)


def test_starting_registers_what_the_worker_consumes_and_can_run_and_schedules_beats(
    settings, name
):
    settings.NOTIFLOW_SMS_BACKEND = "none"
    c = consumer(name)
    step = WorkerRegistration(c)
    step.start(c)

    worker = Worker.objects.get(name=name)
    assert worker.queues == ["billing", "default"] and worker.concurrency == 3
    assert worker.node_types == [
        "delay",
        "digest",
        "email",
        "fetch",
        "inapp",
        "slack",
        "teams",
        "throttle",
        "wait_event",
        "window",
    ]  # no SMS provider: no sms nodes (Slack and Teams need none configured)
    assert set(worker.providers) == {"email", "slack", "teams"}
    assert worker.version == metadata.version("notiflow")
    assert worker.stopped_at is None
    (beat,) = c.timer.scheduled
    assert beat.seconds == settings.NOTIFLOW_WORKER_HEARTBEAT_SECONDS and not beat.cancelled


def test_the_version_can_be_stamped_by_the_environment(settings):
    settings.NOTIFLOW_VERSION = "2026.11.23-abc1234"
    assert registration.code_version() == "2026.11.23-abc1234"


def test_a_beat_refreshes_the_row_and_registers_again_a_row_that_is_gone(name):
    c = consumer(name)
    step = WorkerRegistration(c)
    step.start(c)
    before = Worker.objects.get(name=name).last_seen_at
    step.beat(c)
    assert Worker.objects.get(name=name).last_seen_at > before

    Worker.objects.filter(
        name=name
    ).delete()  # an operator cleaned up, or the database was restored
    step.beat(c)
    assert Worker.objects.get(name=name).stopped_at is None


def test_a_database_outage_is_logged_and_retried_at_the_next_beat(monkeypatch, caplog, name):
    c = consumer(name)
    step = WorkerRegistration(c)
    step.start(c)
    connection.ensure_connection()

    def down(**kwargs: Any) -> bool:
        raise OperationalError("connection refused")

    monkeypatch.setattr(registration, "worker_heartbeat", down)
    caplog.set_level(logging.WARNING, logger="workers.registration")
    step.beat(c)  # does not raise: the worker goes on
    assert f"{name} could not beat" in caplog.text and "connection refused" in caplog.text
    assert connection.connection is None  # dropped: the next beat opens a new one

    monkeypatch.undo()
    Worker.objects.filter(name=name).update(queues=[])
    step.beat(c)
    assert Worker.objects.get(name=name).queues == ["billing", "default"]


def test_a_consumer_restart_cancels_the_beats_without_marking_the_worker_stopped(name):
    c = consumer(name)
    step = WorkerRegistration(c)
    step.start(c)
    step.stop(c)  # what a lost broker connection does before starting the steps again
    assert c.timer.scheduled[0].cancelled
    assert Worker.objects.get(name=name).stopped_at is None
    step.start(c)
    assert len(c.timer.scheduled) == 2 and not c.timer.scheduled[1].cancelled


def test_the_shutdown_marks_the_worker_stopped(name):
    c = consumer(name)
    step = WorkerRegistration(c)
    step.start(c)
    step.close(c)  # only the blueprint's stop, on the worker's shutdown, closes its steps
    step.stop(c)
    assert Worker.objects.get(name=name).stopped_at is not None
