"""The broker (common/broker.py): kombu's Redis transport with one redis-py client per connection
pool instead of one per command, and the direct writer of task messages."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from unittest.mock import patch

import pytest
import redis
from celery import Celery, signals
from kombu import Queue

from common.broker import TaskCall, TaskMessageWriter, Transport, broker_priority
from notiflow.celery import app
from tests.conftest import TEST_BROKER_URL, unique
from triggers.dispatch import Nudge, triggers_publish


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


def _pushed(client: redis.Redis, key: str = DIRECT_QUEUE) -> dict:
    return json.loads(client.rpop(key))


def _direct_writer() -> TaskMessageWriter:
    writer = TaskMessageWriter.for_app(app)
    assert writer is not None, "the test broker is a plain redis:// URL: the writer applies"
    return writer


def _call(args: list, countdown: float | None = None, priority: int = 0) -> TaskCall:
    return TaskCall(args=args, queue=DIRECT_QUEUE, priority=priority, countdown=countdown)


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


def _clear(client: redis.Redis) -> None:
    client.delete(DIRECT_QUEUE, *(f"{DIRECT_QUEUE}\x06\x16{step}" for step in range(10)))


@pytest.mark.parametrize(("countdown", "priority"), [(None, 0), (2.5, 0), (None, 4), (None, 9)])
def test_direct_message_is_the_message_celery_publishes_on_the_same_list(countdown, priority):
    client = redis.Redis.from_url(TEST_BROKER_URL)
    _clear(client)
    app.send_task(
        "workers.execute_node",
        args=["t-1"],
        queue=DIRECT_QUEUE,
        countdown=countdown,
        priority=priority,
    )
    (celerys_list,) = client.keys(f"{DIRECT_QUEUE}*")  # the priority's own list
    celerys = _pushed(client, celerys_list)
    writer = _direct_writer()
    assert writer.list_of(DIRECT_QUEUE, priority).encode() == celerys_list
    assert writer.publish("workers.execute_node", [_call(["t-1"], countdown, priority)])
    ours = _pushed(client, celerys_list)
    if countdown:
        eta = datetime.fromisoformat(ours["headers"]["eta"])
        expected = datetime.now(UTC) + timedelta(seconds=countdown)
        assert abs((eta - expected).total_seconds()) < 1
    assert _ids_blanked(ours) == _ids_blanked(celerys)


def test_the_most_urgent_nudge_is_the_one_a_worker_takes_first():
    # kombu's Redis channel pops its priority lists in step order (its _brpop_start), one list
    # per step here (settings: priority_steps): Notiflow's 9 must be on step 0, its 0 on step 9.
    url = app.conf.broker_url
    assert [broker_priority(p, broker_url=url) for p in (9, 5, 0)] == [0, 4, 9]
    assert broker_priority(9, broker_url="amqp://guest@localhost//") == 9
    client = redis.Redis.from_url(TEST_BROKER_URL)
    _clear(client)
    triggers_publish(
        [Nudge(f"p{priority}", queue=DIRECT_QUEUE, priority=priority) for priority in (0, 5, 9)]
    )
    taken = []
    with app.connection_for_read() as connection, connection.SimpleQueue(DIRECT_QUEUE) as queue:
        for _ in range(3):  # taken as a worker takes them
            message = queue.get(timeout=5)
            taken.append(message.headers["argsrepr"])
            message.ack()
    assert taken == ["['p9']", "['p5']", "['p0']"]


def test_direct_messages_published_from_a_task_name_it_as_their_parent():
    parent = SimpleNamespace(id="parent-task", root_id="root-task")
    message = json.loads(_direct_writer().message("workers.execute_node", _call(["t-2"]), parent))
    assert (message["headers"]["parent_id"], message["headers"]["root_id"]) == (
        "parent-task",
        "root-task",
    )
    assert base64.b64decode(message["body"]).decode().startswith('[["t-2"], {}, ')


def test_many_direct_messages_go_in_one_command_in_order():
    client = redis.Redis.from_url(TEST_BROKER_URL)
    _clear(client)
    assert _direct_writer().publish("workers.execute_node", [_call([f"t-{i}"]) for i in range(3)])
    taken = [_pushed(client)["headers"]["argsrepr"] for _ in range(3)]  # as a worker takes them
    assert taken == ["['t-0']", "['t-1']", "['t-2']"]


def test_celery_publishes_while_a_publish_signal_has_a_receiver():
    seen = []

    def receiver(sender=None, **kwargs):
        seen.append(sender)

    signals.before_task_publish.connect(receiver)
    try:
        assert _direct_writer().publish("workers.execute_node", [_call(["t-3"])]) is False
        triggers_publish([Nudge("t-3", queue=DIRECT_QUEUE, priority=5)])
    finally:
        signals.before_task_publish.disconnect(receiver)
    assert seen == ["workers.execute_node"]  # the integration saw the nudge


def test_no_direct_writer_for_a_broker_it_does_not_know():
    other = Celery("other", broker="memory://", set_as_current=False)
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
def test_no_direct_write_to_a_queue_with_arguments(argument):
    # kombu's Redis transport acts on some (it renews x-expires on every publish); a bare LPUSH
    # would not, so Celery publishes to such a queue.
    def app_with(**queue_options):
        other = Celery("other", broker=TEST_BROKER_URL, set_as_current=False)
        other.conf.broker_transport = app.conf.broker_transport
        other.conf.task_queues = [Queue("celery", routing_key="celery", **queue_options)]
        return other

    plain, with_argument = (
        TaskMessageWriter.for_app(other) for other in (app_with(), app_with(**argument))
    )
    assert plain is not None and with_argument is not None
    assert plain.takes("celery")  # the same queue, no argument
    assert not with_argument.takes("celery")
    assert with_argument.publish("workers.execute_node", [TaskCall(["t"], "celery", 0)]) is False


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
            triggers_publish([Nudge("t-4", queue=DIRECT_QUEUE, priority=5)])
    finally:
        signals.after_task_publish.disconnect(receiver)
    assert seen == ["workers.execute_node"]


# RabbitMQ (docs/design/rules.md, rule 11): the same mapping, the other convention.

AMQP_URL = os.environ.get("NOTIFLOW_TEST_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672//")


@pytest.fixture
def amqp_app() -> Iterator[Celery]:
    """A Celery app on the local RabbitMQ, its queues declared as the settings declare them on
    an AMQP broker (x-max-priority 9)."""
    other = Celery("amqp-priority", broker=AMQP_URL, set_as_current=False)
    other.conf.task_queue_max_priority = 9
    try:
        other.connection_for_write(AMQP_URL).ensure_connection(max_retries=1)
    except Exception as exc:
        if os.environ.get("CI"):
            raise  # CI's machine runs RabbitMQ (.ci/run starts it)
        pytest.skip(f"RabbitMQ at {AMQP_URL} does not answer: {exc}")
    yield other


def test_rabbitmq_delivers_the_most_urgent_nudge_first(amqp_app):
    queue = Queue(unique("amqp-priority"), max_priority=9)
    # An explicit URL: Celery prefers the environment's CELERY_BROKER_URL (the tests' Redis).
    with amqp_app.connection_for_write(AMQP_URL) as connection:
        assert connection.transport_cls == "amqp"
        for priority in (0, 5, 9, 3):
            amqp_app.send_task(
                "workers.execute_node",
                args=[f"p{priority}"],
                queue=queue.name,
                priority=broker_priority(priority, broker_url=AMQP_URL),
                connection=connection,
            )
        taken = []
        with connection.SimpleQueue(queue) as simple:
            for _ in range(4):
                message = simple.get(timeout=5)
                taken.append(message.headers["argsrepr"])
                message.ack()
        queue(connection.default_channel).delete()
    assert taken == ["['p9']", "['p5']", "['p3']", "['p0']"]
