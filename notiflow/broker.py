"""The broker: kombu's Redis transport without a redis-py client per command, and a direct writer
of task messages for the one message the services publish in bulk, the nudge.

The transport. kombu's Redis channel builds a fresh `redis.Redis` for every command it sends
outside its event loop (`Channel.conn_or_acquire`); redis-py fills a table of some 170 response
callbacks in each constructor. This channel keeps one client per connection pool instead. A
redis-py client is only a front for its pool (which is thread-safe and hands each command a
connection of its own), so sharing it changes nothing else; when kombu replaces the pool (after a
fork, or a reconnect), the client is made anew with it. Selected by CELERY_BROKER_TRANSPORT
(settings.py) for `redis://` broker URLs, so the web process, the workers, beat and the bench's
plain Celery baseline all use it.

The direct writer (`TaskMessageWriter`). Every intake request and every engine step publishes one
nudge. Through `send_task`, Celery's router, message builder and kombu's producer, entity
declaration and retry wrapper cost 0.47 ms of CPU per message here (BENCHMARKS.md), more than
the step's SQL on the client. The message itself is fixed but for its ids: the writer builds the
same JSON that kombu's Redis transport would push (Celery's task protocol 2, JSON body, base64 as
kombu's Redis channel encodes it) and pushes it onto the queue's Redis list (LPUSH, many messages
in one command), which is all the transport does with it in the end. It is used only where it is
exactly equivalent (`TaskMessageWriter.for_app`): a single `redis://` broker with this project's
transport, protocol 2, JSON, no compression, no task routes, no key prefix, no priorities, a
queue without arguments (kombu renews a queue's x-expires on every publish, for one), and no
receiver of Celery's publish signals (tracing integrations hook those; with one connected, Celery
publishes). Elsewhere, and everywhere when NOTIFLOW_DIRECT_PUBLISH is off, `send_task` does.
tests/test_broker.py holds its messages equal to Celery's own; docs/upgrading.md lists what it
leans on.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
from celery import Celery, signals
from kombu.transport import redis as kombu_redis
from kombu.transport.base import to_rabbitmq_queue_arguments  # type: ignore[attr-defined]  # (not in the stubs)
from redis.backoff import NoBackoff
from redis.retry import Retry

TRANSPORT = "notiflow.broker:Transport"


class Channel(kombu_redis.Channel):
    _sync_client: Any = None

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        if client:
            yield client
            return
        pool = self.pool
        cached = self._sync_client
        if cached is None or cached.connection_pool is not pool:
            cached = self._sync_client = self._create_client()  # type: ignore[attr-defined]  # (kombu, not in the stubs)
        yield cached


class Transport(kombu_redis.Transport):
    Channel = Channel


# The third element of a protocol 2 body: no callbacks, errbacks, chain or chord.
_EMBED = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}


@dataclass
class TaskMessageWriter:
    """Writes task messages by task name straight onto the Redis list the workers read."""

    app: Celery
    client: redis.Redis
    queue: str

    @classmethod
    def for_app(cls, app: Celery) -> TaskMessageWriter | None:
        """The writer for `app`'s broker, or None where only Celery's own publish is exact."""
        conf = app.conf
        url = conf.broker_url or ""
        options = conf.broker_transport_options or {}
        queue = app.amqp.default_queue
        if not (
            url.startswith("redis://")
            and ";" not in url
            and conf.broker_transport == TRANSPORT
            and not conf.broker_use_ssl
            and conf.task_protocol == 2
            and conf.task_serializer == "json"
            and not conf.task_compression
            and not conf.task_routes
            and conf.task_default_priority is None
            and not options.get("global_keyprefix")
            and not options.get("sep")
            and queue.exchange.type == "direct"
            and queue.routing_key == queue.name
            and not queue_arguments(queue)
        ):
            return None
        timeout = conf.broker_connection_timeout
        client = redis.Redis.from_url(
            url,
            socket_connect_timeout=timeout,
            socket_timeout=timeout,
            # The publish retry policy (settings.py) allows one quick retry: so does this client.
            retry=Retry(NoBackoff(), 1),
        )
        return cls(app=app, client=client, queue=queue.name)

    def publish(self, task_name: str, calls: Sequence[tuple[list[Any], float | None]]) -> bool:
        """Push one message per (args, countdown) in one command; False (nothing pushed) when a
        publish signal has receivers, and Celery must publish instead. Raises redis's errors."""
        if _publish_signals_connected():
            return False
        parent = self.app.current_worker_task
        parent_request = parent.request if parent else None
        messages = [
            self.message(task_name, args, countdown, parent_request) for args, countdown in calls
        ]
        if messages:
            self.client.lpush(self.queue, *messages)
        return True

    def message(
        self, task_name: str, args: list[Any], countdown: float | None, parent: Any = None
    ) -> str:
        """The message kombu's Redis transport would push for `send_task(task_name, args,
        countdown=countdown)` sent from within the task whose request is `parent` (if any)."""
        task_id = str(uuid.uuid4())
        eta = None
        if countdown:
            eta = (datetime.now(UTC) + timedelta(seconds=countdown)).isoformat()
        parent_id = parent.id if parent else None
        root_id = (parent.root_id or parent.id) if parent else task_id
        body = json.dumps([args, {}, _EMBED])
        return json.dumps(
            {
                "body": base64.b64encode(body.encode()).decode(),
                "content-encoding": "utf-8",
                "content-type": "application/json",
                "headers": {
                    "lang": "py",
                    "task": task_name,
                    "id": task_id,
                    "shadow": None,
                    "eta": eta,
                    "expires": None,
                    "group": None,
                    "group_index": None,
                    "retries": 0,
                    "timelimit": [None, None],
                    "root_id": root_id,
                    "parent_id": parent_id,
                    "argsrepr": repr(args),
                    "kwargsrepr": "{}",
                    "origin": _origin(),
                    "ignore_result": False,
                    "replaced_task_nesting": 0,
                    "stamped_headers": None,
                    "stamps": {},
                },
                "properties": {
                    "correlation_id": task_id,
                    "reply_to": self.app.thread_oid,
                    "delivery_mode": 2,
                    "delivery_info": {"exchange": "", "routing_key": self.queue},
                    "priority": 0,
                    "body_encoding": "base64",
                    "delivery_tag": str(uuid.uuid4()),
                },
            }
        )


def queue_arguments(queue: Any) -> dict[str, Any]:
    """Every argument kombu applies to `queue` when it declares it (x-expires, x-message-ttl,
    x-max-length, x-max-priority, and whatever `queue_arguments` adds), computed by kombu's own
    conversion: the writer takes over only from a queue that has none. kombu's Redis transport
    acts on some of them at publish time (it renews x-expires with every message), which a
    plain LPUSH would not."""
    return dict(
        to_rabbitmq_queue_arguments(
            queue.queue_arguments or {},
            expires=queue.expires,
            message_ttl=queue.message_ttl,
            max_length=queue.max_length,
            max_length_bytes=queue.max_length_bytes,
            max_priority=queue.max_priority,
        )
    )


def _publish_signals_connected() -> bool:
    return bool(
        signals.before_task_publish.receivers
        or signals.after_task_publish.receivers
        or signals.task_sent.receivers
    )


_origin_of_pid: tuple[int, str] = (0, "")


def _origin() -> str:
    """Celery's `origin` header (`anon_nodename()`): gen<pid>@<host>, computed once per process."""
    global _origin_of_pid
    pid = os.getpid()
    if _origin_of_pid[0] != pid:
        _origin_of_pid = (pid, f"gen{pid}@{socket.gethostname()}")
    return _origin_of_pid[1]
