"""The broker transport (notiflow/broker.py): kombu's Redis transport with one redis-py client per
connection pool instead of one per command."""

from __future__ import annotations

import redis

from notiflow.broker import Transport
from notiflow.celery import app
from tests.conftest import TEST_BROKER_URL


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
