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
transport, protocol 2, JSON, no compression, no task routes, no key prefix, no default priority,
queues without arguments (kombu renews a queue's x-expires on every publish, for one), and no
receiver of Celery's publish signals (tracing integrations hook those; with one connected, Celery
publishes). Elsewhere, and everywhere when NOTIFLOW_DIRECT_PUBLISH is off, `send_task` does.
tests/test_broker.py holds its messages equal to Celery's own; docs/upgrading.md lists what it
leans on.

Priorities (docs/design/rules.md, rule 11). Notiflow's priority is 0-9, higher more urgent.
`broker_priority` is the one place that turns it into the broker's own: RabbitMQ delivers the
highest message priority first (queues declared with x-max-priority, settings.py), so it is the
same number; kombu's Redis transport keeps a list per priority step and pops the lowest step
first, so it is 9 minus it.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import socket
import uuid
from bisect import bisect
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

import redis
from celery import Celery, signals
from kombu.transport import redis as kombu_redis
from kombu.transport.base import to_rabbitmq_queue_arguments  # type: ignore[attr-defined]  # (not in the stubs)
from redis.backoff import NoBackoff
from redis.retry import Retry

TRANSPORT = "common.broker:Transport"

PRIORITY_MAX = 9  # Notiflow's scale is 0..PRIORITY_MAX (workflows.routing), higher more urgent


logger = logging.getLogger("notiflow.broker")  # the name operators filter on


def broker_priority(priority: int, *, broker_url: str) -> int:
    """The message priority that makes the broker at `broker_url` deliver Notiflow's `priority`
    (0-9, higher is more urgent) in the right order: the one mapping (docs/design/rules.md, rule 11)."""
    if broker_url.startswith(("redis://", "rediss://", "redis+socket://")):
        return PRIORITY_MAX - priority  # kombu's Redis transport pops step 0 first
    return priority  # AMQP: the highest priority first


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


@dataclass(frozen=True)
class TaskCall:
    """One task message to publish: by task name, with positional `args`, to `queue`, at the
    broker's own `priority` (from broker_priority), after `countdown` seconds if given."""

    args: list[Any]
    queue: str
    priority: int
    countdown: float | None = None


@dataclass
class TaskMessageWriter:
    """Writes task messages by task name straight onto the Redis lists the workers read."""

    app: Celery
    client: redis.Redis
    priority_steps: Sequence[int]
    sep: str
    _plain_queues: dict[str, bool] = field(default_factory=dict)  # takes(), per queue name

    @classmethod
    def for_app(cls, app: Celery) -> TaskMessageWriter | None:
        """The writer for `app`'s broker, or None where only Celery's own publish is exact."""
        conf = app.conf
        url = conf.broker_url or ""
        options = conf.broker_transport_options or {}
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
        return cls(
            app=app,
            client=client,
            priority_steps=sorted(options.get("priority_steps", kombu_redis.PRIORITY_STEPS)),
            sep=options.get("sep", Channel.sep),
        )

    def publish(self, task_name: str, calls: Sequence[TaskCall]) -> bool:
        """Push one message per call, in one round trip; False (nothing pushed) when a publish
        signal has receivers or a queue is not a plain one, and Celery must publish instead.
        Raises redis's errors."""
        if _publish_signals_connected() or not all(self.takes(call.queue) for call in calls):
            return False
        parent = self.app.current_worker_task
        parent_request = parent.request if parent else None
        lists: dict[str, list[str]] = {}
        for call in calls:
            message = self.message(task_name, call, parent_request)
            lists.setdefault(self.list_of(call.queue, call.priority), []).append(message)
        if len(lists) == 1:
            (name, messages), *_ = lists.items()
            self.client.lpush(name, *messages)
        elif lists:
            with self.client.pipeline(transaction=False) as pipe:
                for name, messages in lists.items():
                    pipe.lpush(name, *messages)
                pipe.execute()
        return True

    def takes(self, queue: str) -> bool:
        """Whether a plain LPUSH is all kombu would do to publish to `queue`: a direct exchange
        routed by its name, without arguments (as Celery creates a queue it does not know).
        Queues are configuration, fixed for the life of the process: asked once per name."""
        plain = self._plain_queues.get(queue)
        if plain is None:
            declared = self.app.amqp.queues[queue]  # Celery creates a missing one, as send_task
            plain = self._plain_queues[queue] = (
                declared.exchange.type == "direct"
                and declared.routing_key == declared.name
                and not queue_arguments(declared)
            )
        return plain

    def list_of(self, queue: str, priority: int) -> str:
        """The Redis list kombu's Redis channel pushes a message of `priority` for `queue` onto
        (its `_q_for_pri`): the queue's own list for step 0, `<queue><sep><step>` for the rest."""
        step = self.priority_steps[bisect(self.priority_steps, priority) - 1]
        return f"{queue}{self.sep}{step}" if step else queue

    def waiting(self, queues: Sequence[str]) -> int:
        """How many messages wait in `queues` at every priority: LLEN of each of their lists
        (list_of, at each step), in one round trip."""
        with self.client.pipeline(transaction=False) as pipe:
            for queue in queues:
                for step in self.priority_steps:
                    pipe.llen(self.list_of(queue, step))
            return sum(int(length) for length in pipe.execute())

    def message(self, task_name: str, call: TaskCall, parent: Any = None) -> str:
        """The message kombu's Redis transport would push for `send_task(task_name, call.args,
        queue=call.queue, priority=call.priority, countdown=call.countdown)` sent from within
        the task whose request is `parent` (if any)."""
        task_id = str(uuid.uuid4())
        eta = None
        if call.countdown:
            eta = (datetime.now(UTC) + timedelta(seconds=call.countdown)).isoformat()
        parent_id = parent.id if parent else None
        root_id = (parent.root_id or parent.id) if parent else task_id
        body = json.dumps([call.args, {}, _EMBED])
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
                    "argsrepr": repr(call.args),
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
                    "delivery_info": {"exchange": "", "routing_key": call.queue},
                    "priority": call.priority,
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


def tasks_publish(task_name: str, calls: Sequence[TaskCall], *, direct: bool = True) -> None:
    """Publish `calls` of `task_name` now: straight onto the Redis lists when the writer can
    (`direct`, NOTIFLOW_DIRECT_PUBLISH), else through Celery's producer. The one way nudges
    leave a process: the engine's (triggers.dispatch) and the webhook dispatcher's
    (events.dispatch). Raises what the broker raises; the callers log it (PostgreSQL holds the
    truth and their sweepers publish again)."""
    from celery import current_app

    writer = _writer(current_app.conf.broker_url, direct)
    if writer is not None and writer.publish(task_name, list(calls)):
        return
    with current_app.producer_or_acquire() as producer:
        for call in calls:
            current_app.send_task(
                task_name,
                args=call.args,
                queue=call.queue,
                priority=call.priority,
                countdown=call.countdown,
                producer=producer,
            )


def nudges_publish(
    task_name: str, nudges: Iterable[Any], *, arg: Callable[[Any], Any], direct: bool, sweep: str
) -> None:
    """Publish now one call of `task_name` per nudge (leased work's: a run's, a fan-out chunk's, a
    wait's timeout), its one argument `arg(nudge)`, on the nudge's `queue` at its `priority`,
    after its `countdown` when positive, in one round trip (tasks_publish). A broker failure is
    logged, not raised: PostgreSQL holds the truth, and `sweep` sends them again."""
    from celery import current_app

    url = current_app.conf.broker_url
    calls = [
        TaskCall(
            args=[arg(nudge)],
            queue=nudge.queue,
            priority=broker_priority(nudge.priority, broker_url=url),
            countdown=nudge.countdown if nudge.countdown and nudge.countdown > 0 else None,
        )
        for nudge in nudges
    ]
    try:
        tasks_publish(task_name, calls, direct=direct)
    except Exception:
        logger.warning("broker unavailable; %s will send these again", sweep, exc_info=True)


@lru_cache(maxsize=4)
def _writer(broker_url: str, enabled: bool) -> TaskMessageWriter | None:
    """The direct message writer for the app's broker, if switched on and exact; made once per
    broker URL."""
    from celery import current_app

    return TaskMessageWriter.for_app(current_app) if enabled else None


def nudges_waiting(queues: Iterable[str] = ()) -> int | None:
    """How many messages wait in the given queues (`task_default_queue` if none), at every
    priority, or None when the broker cannot say.

    One round trip per queue (on Redis, LLEN of each priority list in one pipeline). A queue that
    does not exist is empty: Redis drops a list when its last message is taken.
    """
    from celery import current_app
    from kombu.exceptions import ChannelError

    asked = sorted(set(queues)) or [current_app.conf.task_default_queue]
    writer = _writer(current_app.conf.broker_url, True)
    if writer is not None:
        # On Redis, the lists the direct writer pushes onto, named as it names them: the count
        # cannot miss a priority list the writer uses, whatever steps another channel assumes.
        try:
            return writer.waiting(asked)
        except Exception:
            logger.warning("broker unavailable; cannot tell how many nudges wait", exc_info=True)
            return None
    total = 0
    try:
        with current_app.connection_for_read() as conn:
            channel = conn.default_channel
            for queue in asked:
                try:
                    declared = channel.queue_declare(queue=queue, passive=True)  # type: ignore[attr-defined]
                except ChannelError:
                    # No such queue: nothing waits in it. (AMQP closes a channel whose passive
                    # declare failed: the next queue is asked on a new one.)
                    channel = conn.channel()
                    continue
                total += int(declared.message_count)
    except Exception:
        logger.warning("broker unavailable; cannot tell how many nudges wait", exc_info=True)
        return None
    return total
