"""The broker (notiflow/broker.py): kombu's Redis transport with one redis-py client per connection
pool instead of one per command, and the direct writer of task messages."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from unittest.mock import patch

import pytest
import redis
from celery import Celery, signals
from kombu import Queue

from notiflow.broker import TaskMessageWriter, Transport
from notiflow.celery import app
from tests.conftest import TEST_BROKER_URL
from triggers.dispatch import triggers_publish


def test_the_celery_app_publishes_through_the_notiflow_transport():
    with app.connection_for_write() as connection:
        assert isinstance(connection.transport, Transport)


def test_commands_share_one_client_until_kombu_replaces_the_pool():
    with app.connection_for_write() as connection:
        channel = connection.default_channel
        with channel.conn_or_acquire() as first, channel.conn_or_acquire() as second:
            assert first is second and first.connection_pool is channel.pool
        channel._disconnect_pools()  # what kombu does after a fork
        with channel.conn_or_acquire() as third:
            assert third is not first and third.connection_pool is channel.pool


def test_a_published_message_lands_in_the_queue_of_the_broker_url():
    queue = "notiflow-test-broker"
    client = redis.Redis.from_url(TEST_BROKER_URL)
    client.delete(queue)
    app.send_task("workers.execute_node", args=["not-a-trigger"], queue=queue)
    assert client.llen(queue) == 1
    client.delete(queue)


# The direct writer (TaskMessageWriter): the same message Celery would publish, pushed straight.

DIRECT_QUEUE = "notiflow-test-direct"


def _pushed(client: redis.Redis) -> dict:
    return json.loads(client.rpop(DIRECT_QUEUE))


def _direct_writer() -> TaskMessageWriter:
    writer = TaskMessageWriter.for_app(app)
    assert writer is not None, "the test broker is a plain redis:// URL: the writer applies"
    writer.queue = DIRECT_QUEUE
    return writer


def _ids_blanked(message: dict) -> dict:
    """The message with what is unique to each publish (ids, tag, eta instant) blanked."""
    headers, properties = message["headers"], message["properties"]
    assert headers["id"] == headers["root_id"] == properties["correlation_id"]
    assert properties["delivery_tag"] and headers["origin"].startswith("gen")
    for key in ("id", "root_id", "origin"):
        headers[key] = "-"
    properties["correlation_id"] = properties["delivery_tag"] = "-"
    if headers["eta"] is not None:
        headers["eta"] = datetime.fromisoformat(headers["eta"]).utcoffset()
    return message


@pytest.mark.parametrize("countdown", [None, 2.5])
def test_direct_message_is_the_message_celery_publishes(countdown):
    client = redis.Redis.from_url(TEST_BROKER_URL)
    client.delete(DIRECT_QUEUE)
    app.send_task("workers.execute_node", args=["t-1"], queue=DIRECT_QUEUE, countdown=countdown)
    celerys = _pushed(client)
    assert _direct_writer().publish("workers.execute_node", [(["t-1"], countdown)])
    ours = _pushed(client)
    if countdown:
        eta = datetime.fromisoformat(ours["headers"]["eta"])
        expected = datetime.now(UTC) + timedelta(seconds=countdown)
        assert abs((eta - expected).total_seconds()) < 1
    assert _ids_blanked(ours) == _ids_blanked(celerys)


def test_direct_messages_published_from_a_task_name_it_as_their_parent():
    client = redis.Redis.from_url(TEST_BROKER_URL)
    client.delete(DIRECT_QUEUE)
    parent = SimpleNamespace(id="parent-task", root_id="root-task")
    message = json.loads(_direct_writer().message("workers.execute_node", ["t-2"], None, parent))
    assert (message["headers"]["parent_id"], message["headers"]["root_id"]) == (
        "parent-task",
        "root-task",
    )
    assert base64.b64decode(message["body"]).decode().startswith('[["t-2"], {}, ')


def test_many_direct_messages_go_in_one_command_in_order():
    client = redis.Redis.from_url(TEST_BROKER_URL)
    client.delete(DIRECT_QUEUE)
    assert _direct_writer().publish("workers.execute_node", [([f"t-{i}"], None) for i in range(3)])
    taken = [_pushed(client)["headers"]["argsrepr"] for _ in range(3)]  # as a worker takes them
    assert taken == ["['t-0']", "['t-1']", "['t-2']"]


def test_celery_publishes_while_a_publish_signal_has_a_receiver():
    seen = []

    def receiver(sender=None, **kwargs):
        seen.append(sender)

    signals.before_task_publish.connect(receiver)
    try:
        assert _direct_writer().publish("workers.execute_node", [(["t-3"], None)]) is False
        triggers_publish([("t-3", None)])
    finally:
        signals.before_task_publish.disconnect(receiver)
    assert seen == ["workers.execute_node"]  # the integration saw the nudge


def test_no_direct_writer_for_a_broker_it_does_not_know():
    other = Celery("other", broker="memory://")
    assert TaskMessageWriter.for_app(other) is None


@pytest.mark.parametrize(
    "argument",
    [
        {"expires": 60},
        {"message_ttl": 30},
        {"max_length": 1000},
        {"max_length_bytes": 10**6},
        {"max_priority": 9},
        {"queue_arguments": {"x-expires": 60_000}},
    ],
    ids=lambda argument: next(iter(argument)),
)
def test_no_direct_writer_for_a_queue_with_arguments(argument):
    # kombu's Redis transport acts on some (it renews x-expires on every publish); a bare LPUSH
    # would not, so Celery publishes to such a queue.
    def app_with(**queue_options):
        other = Celery("other", broker=TEST_BROKER_URL)
        other.conf.broker_transport = app.conf.broker_transport
        other.conf.task_queues = [Queue("celery", routing_key="celery", **queue_options)]
        return other

    assert TaskMessageWriter.for_app(app_with()) is not None  # the same queue, no argument
    assert TaskMessageWriter.for_app(app_with(**argument)) is None


def test_switched_off_celery_publishes_every_nudge(settings):
    settings.NOTIFLOW_DIRECT_PUBLISH = False
    seen = []

    def receiver(sender=None, **kwargs):  # only Celery's own publish sends this signal
        seen.append(sender)

    # Were the writer asked, its publish would fail (and the nudge be dropped, logged): the
    # signal below fires only when Celery published.
    signals.after_task_publish.connect(receiver)
    try:
        with patch.object(TaskMessageWriter, "publish", side_effect=AssertionError("direct")):
            triggers_publish([("t-4", None)])
    finally:
        signals.after_task_publish.disconnect(receiver)
    assert seen == ["workers.execute_node"]
