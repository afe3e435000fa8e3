"""The floor (issue 21): the engine's own claim and outcome statements, through psycopg, in a
plain Celery chain: every hop is one step's SQL, then `send_task` of the next hop.

No Django per step, no templates, no ledger logic beyond the SQL: what is left is Celery (the
same broker, the same worker command and pool, the very CELERY_ settings of Notiflow) and
PostgreSQL. engine / floor is therefore the engine's own overhead. `celery -A bench.floor worker`
imports Django once, at start, for the statement texts (bench.dblimit.engine_statements) and
the settings; a hop never touches it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import redis
from celery import Celery

from bench.dblimit import NODES, _step, triggers_create

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")

app = Celery("bench_floor", set_as_current=False)
app.config_from_object("django.conf:settings", namespace="CELERY")

HOP_TASK = "bench.floor_hop"
DONE_KEY = "bench:floor:done"
LAST_KEY = "bench:floor:last"
WORKFLOW_ENV = "BENCH_FLOOR_WORKFLOW"
_per_process: dict[int, tuple[psycopg.Connection[Any], redis.Redis, dict[str, Any]]] = {}


def _resources() -> tuple[psycopg.Connection[Any], redis.Redis, dict[str, Any]]:
    """This pool process's connection (prepared statements, as common/db.py), Redis client
    and statement texts, made after the fork."""
    if os.getpid() not in _per_process:
        import django

        django.setup()
        from bench.dblimit import engine_statements

        url = os.environ["DATABASE_URL"]
        conn = psycopg.connect(url, autocommit=True, prepare_threshold=0)
        _per_process[os.getpid()] = (
            conn,
            redis.Redis.from_url(app.conf.broker_url),
            engine_statements(),
        )
    return _per_process[os.getpid()]


@app.task(name=HOP_TASK, ignore_result=True)
def floor_hop(trigger_id: str, index: int) -> None:
    conn, client, sql = _resources()
    with conn.cursor() as cur:
        _step(cur, sql, trigger_id, index, int(os.environ[WORKFLOW_ENV]))
    if index + 1 < len(NODES):
        with app.producer_or_acquire() as producer:
            app.send_task(HOP_TASK, args=[trigger_id, index + 1], producer=producer)
        return
    pipe = client.pipeline(transaction=False)
    pipe.incr(DONE_KEY)
    pipe.set(LAST_KEY, repr(time.time()))
    pipe.execute()


@dataclass(frozen=True)
class FloorRun:
    triggers: int
    steps: int
    seconds: float
    enqueue_seconds: float
    cpu: dict[str, float]

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else 0.0


def floor_run(
    procs: Any, *, url: str, workflow: int, version: int, triggers: int, layout: Any = None
) -> FloorRun:
    """`triggers` x 3 hops of engine SQL through `celery -A bench.floor worker` (arranged as
    `layout`, bench.infra.Layout; the standard worker command by default): the first hop
    enqueued -> the last hop finished."""
    from bench.cpu import CpuMeter, backends, children, redis_group
    from bench.infra import STANDARD, redis_flush

    redis_flush(procs.config)
    ids = triggers_create(url, workflow=workflow, version=version, count=triggers, prefix="floor")
    client = redis.Redis.from_url(procs.config.redis_url)
    workers = (layout or STANDARD).start(
        procs,
        name="worker-floor",
        app="bench.floor",
        DATABASE_URL=url,
        **{WORKFLOW_ENV: str(workflow)},
    )
    parts = urlsplit(url)
    server, database = urlunsplit(parts._replace(path="")), parts.path.lstrip("/")
    meter = CpuMeter(
        {
            "worker pool processes": lambda: [p for w in workers for p in children(w.pid)],
            "worker main process": lambda: [w.pid for w in workers],
            "postgres backends": lambda: backends(server, database),
            **redis_group(procs.config.redis_url),
        }
    )
    meter.start()
    try:
        started = time.time()
        with app.producer_or_acquire() as producer:
            for trigger_id in ids:
                app.send_task(HOP_TASK, args=[trigger_id, 0], producer=producer)
        enqueued = time.time() - started
        deadline = time.monotonic() + 120 + triggers * len(NODES) / 10
        while int(client.get(DONE_KEY) or 0) < triggers:
            if time.monotonic() > deadline:
                raise RuntimeError(f"floor: only {client.get(DONE_KEY)!r}/{triggers} finished")
            time.sleep(0.2)
        last = float(client.get(LAST_KEY) or 0)
        cpu = meter.stop()
    finally:
        for worker in workers:
            procs.stop(worker)
        app.close()
    return FloorRun(
        triggers=triggers,
        steps=triggers * len(NODES),
        seconds=last - started,
        enqueue_seconds=enqueued,
        cpu=cpu,
    )
