"""The cost of publishing one nudge: CPU per message as the services publish it (the direct
writer of common/broker.py, through `triggers_publish`'s own call) and through Celery's
`send_task`, with the project's transport (what the Celery baseline's hops do) and with kombu's
stock Redis transport, in the same run.

Every message goes to a queue of its own that no worker reads and that is deleted afterwards. The
three sides alternate in batches, so that a change in the machine's load hits all of them.

Imported only after django.setup() (see bench.__main__).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import redis
from celery import Celery

from common.broker import TaskCall, TaskMessageWriter
from triggers.dispatch import EXECUTE_NODE_TASK

QUEUE = "bench-publish"
BATCHES = 10


@dataclass(frozen=True)
class PublishRun:
    messages: int  # per side
    direct_ms: float  # CPU per message, the direct writer (what intake and engine use)
    send_task_ms: float  # CPU per message, send_task through the project's transport
    stock_ms: float  # CPU per message, send_task through kombu's stock Redis transport

    @property
    def ratio(self) -> float:
        """How many times the CPU of a direct write Celery's send_task takes."""
        return self.send_task_ms / self.direct_ms if self.direct_ms else 0.0


def _app(broker_url: str, transport: str | None) -> Celery:
    """A Celery app with Notiflow's CELERY_ settings, but the given broker URL and transport.

    The settings are copied rather than loaded with config_from_object (as bench/chain.py does):
    with the namespaced Django settings loaded that way, a later conf.update of broker_url and
    broker_transport does not take effect, and both sides would measure the project's transport.
    """
    from django.conf import settings

    config = {
        name.removeprefix("CELERY_").lower(): getattr(settings, name)
        for name in dir(settings)
        if name.startswith("CELERY_")
    }
    config.update(broker_url=broker_url, broker_transport=transport)
    app = Celery("bench_publish", set_as_current=False)
    app.conf.update(config)
    return app


def _send_task(app: Celery) -> Callable[[str], None]:
    def publish(trigger_id: str) -> None:
        with app.producer_or_acquire() as producer:
            app.send_task(EXECUTE_NODE_TASK, args=[trigger_id], queue=QUEUE, producer=producer)

    return publish


def _direct(app: Celery) -> Callable[[str], None]:
    writer = TaskMessageWriter.for_app(app)
    if writer is None:
        raise RuntimeError("the direct writer does not apply to this broker (a redis:// URL)")

    def publish(trigger_id: str) -> None:
        writer.publish(EXECUTE_NODE_TASK, [TaskCall([trigger_id], QUEUE, 0)])

    return publish


def _cpu(publish: Callable[[str], None], count: int) -> float:
    """CPU seconds of this process for `count` publishes of one message each."""
    ids = [str(uuid.uuid4()) for _ in range(count)]
    started = time.process_time()
    for trigger_id in ids:
        publish(trigger_id)
    return time.process_time() - started


def publish_run(broker_url: str, *, messages: int) -> PublishRun:
    from django.conf import settings

    ours = _app(broker_url, getattr(settings, "CELERY_BROKER_TRANSPORT", None))
    stock = _app(broker_url, "redis")
    sides = {"direct": _direct(ours), "send_task": _send_task(ours), "stock": _send_task(stock)}
    per_batch = max(1, messages // BATCHES)
    spent = dict.fromkeys(sides, 0.0)
    try:
        for publish in sides.values():  # warm-up: connections, declarations, code paths
            _cpu(publish, 50)
        for _ in range(BATCHES):
            for side, publish in sides.items():
                spent[side] += _cpu(publish, per_batch)
    finally:
        ours.close()
        stock.close()
        redis.Redis.from_url(broker_url).delete(QUEUE)
    total = per_batch * BATCHES
    ms = {side: 1000 * seconds / total for side, seconds in spent.items()}
    return PublishRun(
        messages=total, direct_ms=ms["direct"], send_task_ms=ms["send_task"], stock_ms=ms["stock"]
    )
