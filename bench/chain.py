"""The Celery baseline (figure 2): a plain chain of tasks, each enqueueing the next, no database.

`celery -A bench.chain worker` runs it with the very Celery settings of Notiflow (the CELERY_
block of notiflow.settings: JSON, acks_late, prefetch 1, ...), on the same broker, with the same
worker command, so that the ratio engine / baseline isolates what the engine adds to Celery.
"""

from __future__ import annotations

import os
import time

import redis
from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")

app = Celery("bench_chain", set_as_current=False)
app.config_from_object("django.conf:settings", namespace="CELERY")

HOP_TASK = "bench.hop"
DONE_KEY = "bench:chain:done"
LAST_KEY = "bench:chain:last"
_redis: dict[int, redis.Redis] = {}


def _client() -> redis.Redis:
    # One client per pool process, made after the fork.
    if os.getpid() not in _redis:
        _redis[os.getpid()] = redis.Redis.from_url(app.conf.broker_url)
    return _redis[os.getpid()]


@app.task(name=HOP_TASK, ignore_result=True)
def hop(chain_id: str, remaining: int) -> None:
    """One hop; enqueue the next as a plain Celery program does (send_task by name), or finish.

    The engine writes its nudges straight onto the queue instead (common/broker.py); the
    bench's publish figure shows what that saves per message."""
    if remaining > 1:
        with app.producer_or_acquire() as producer:
            app.send_task(HOP_TASK, args=[chain_id, remaining - 1], producer=producer)
        return
    pipe = _client().pipeline(transaction=False)
    pipe.incr(DONE_KEY)
    pipe.set(LAST_KEY, repr(time.time()))
    pipe.execute()
