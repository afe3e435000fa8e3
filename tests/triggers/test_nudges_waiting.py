"""nudges_waiting(): the length of the workers' queue on the real broker, as the sweeper reads it."""

from __future__ import annotations

import pytest
from celery import current_app

from tests.conftest import unique
from triggers.dispatch import Nudge, nudges_waiting, triggers_publish


@pytest.fixture
def queue():
    """A queue of its own on the test broker, standing in for the workers' queue."""
    name = unique("nudges-waiting")
    yield name
    with current_app.connection_for_write() as conn:
        conn.default_channel.queue_delete(name)


def test_counts_the_messages_waiting(queue):
    assert nudges_waiting([queue]) == 0  # no such list in Redis yet: empty
    with current_app.connection_for_write() as conn:
        simple = conn.SimpleQueue(queue)
        for i in range(3):
            simple.put({"n": i})
        assert nudges_waiting([queue]) == 3
        simple.get(timeout=5).ack()
        assert nudges_waiting([queue]) == 2
        simple.close()


@pytest.fixture
def other_queue():
    name = unique("nudges-waiting-other")
    yield name
    with current_app.connection_for_write() as conn:
        conn.default_channel.queue_delete(name)


def test_counts_every_priority_of_every_queue_asked(queue, other_queue):
    triggers_publish(
        [Nudge(f"t{n}", queue=queue, priority=n) for n in (0, 5, 9)]
        + [Nudge("t", queue=other_queue, priority=5)]
    )
    assert nudges_waiting([queue]) == 3
    assert nudges_waiting([queue, other_queue, unique("never-used")]) == 4


def test_reads_the_workers_queue_by_default():
    assert isinstance(nudges_waiting(), int)


def test_says_none_when_the_broker_is_down(monkeypatch):
    from common import broker

    def unreachable():
        raise ConnectionRefusedError("broker down")

    # Through Celery's connection (where there is no direct writer), and through the direct
    # writer's Redis client (port 1: refused), made as the app's own is (its one quick retry:
    # redis-py's default retries back off for seconds).
    monkeypatch.setattr(current_app, "connection_for_read", unreachable)
    monkeypatch.setattr(broker, "_writer", lambda url, enabled: None)
    assert nudges_waiting() is None
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:1/0")  # what conf.broker_url reads
    # The project's app itself: `current_app` is whichever app was made last in this process
    # (a test of another broker may have made one), whose settings need not allow the writer.
    from notiflow.celery import app

    down = broker.TaskMessageWriter.for_app(app)
    assert down is not None and down.client.get_connection_kwargs()["port"] == 1
    monkeypatch.setattr(broker, "_writer", lambda url, enabled: down)
    assert nudges_waiting() is None
