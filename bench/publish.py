"""The cost of publishing one nudge: CPU per message through the project's broker transport
(notiflow/broker.py) and through kombu's stock Redis transport, the baseline, in the same run.

Each message is published as the intake and the engine publish a nudge (`triggers_publish`: a
producer from the pool, one `send_task` by name, JSON), to a queue of its own that no worker
reads and that is deleted afterwards. The two sides alternate in batches, so that a change in
the machine's load hits both.

Imported only after django.setup() (see bench.__main__).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

import redis
from celery import Celery

from triggers.dispatch import EXECUTE_NODE_TASK

QUEUE = "bench-publish"
BATCHES = 10


@dataclass(frozen=True)
class PublishRun:
    messages: int  # per side
    ours_ms: float  # CPU per message, the configured transport
    stock_ms: float  # CPU per message, kombu's Redis transport

    @property
    def ratio(self) -> float:
        return self.stock_ms / self.ours_ms if self.ours_ms else 0.0


def _app(broker_url: str, transport: str | None) -> Celery:
    """A Celery app with Notiflow's CELERY_ settings, but the given broker transport."""
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


def _publish(app: Celery, count: int) -> float:
    """CPU seconds of this process for `count` publishes, one producer acquired per message."""
    ids = [str(uuid.uuid4()) for _ in range(count)]
    started = time.process_time()
    for trigger_id in ids:
        with app.producer_or_acquire() as producer:
            app.send_task(EXECUTE_NODE_TASK, args=[trigger_id], queue=QUEUE, producer=producer)
    return time.process_time() - started


def publish_run(broker_url: str, *, messages: int) -> PublishRun:
    from django.conf import settings

    ours = _app(broker_url, getattr(settings, "CELERY_BROKER_TRANSPORT", None))
    stock = _app(broker_url, "redis")
    per_batch = max(1, messages // BATCHES)
    spent = {"ours": 0.0, "stock": 0.0}
    try:
        for app in (ours, stock):  # warm-up: connections, declarations, code paths
            _publish(app, 50)
        for _ in range(BATCHES):
            spent["ours"] += _publish(ours, per_batch)
            spent["stock"] += _publish(stock, per_batch)
    finally:
        ours.close()
        stock.close()
        redis.Redis.from_url(broker_url).delete(QUEUE)
    total = per_batch * BATCHES
    return PublishRun(
        messages=total, ours_ms=1000 * spent["ours"] / total, stock_ms=1000 * spent["stock"] / total
    )
