"""Figure 2: the plain Celery chain baseline, run by the standard worker command."""

from __future__ import annotations

import time
from dataclasses import dataclass

import redis

from bench.chain import DONE_KEY, HOP_TASK, LAST_KEY
from bench.chain import app as chain_app
from bench.cpu import CpuMeter, children, redis_group
from bench.infra import Processes, redis_flush


@dataclass(frozen=True)
class BaselineRun:
    chains: int
    hops: int
    seconds: float
    enqueue_seconds: float
    cpu: dict[str, float]

    @property
    def hops_per_second(self) -> float:
        return self.chains * self.hops / self.seconds if self.seconds > 0 else 0.0


def baseline_run(procs: Processes, *, chains: int, hops: int = 3) -> BaselineRun:
    """`chains` chains of `hops` tasks: first enqueued -> last hop finished."""
    redis_flush(procs.config)
    client = redis.Redis.from_url(procs.config.redis_url)
    worker = procs.worker(name="worker-chain", app="bench.chain")
    meter = CpuMeter(
        {
            "worker pool processes": lambda: children(worker.pid),
            "worker main process": lambda: [worker.pid],
            **redis_group(procs.config.redis_url),
        }
    )
    meter.start()
    try:
        started = time.time()
        with chain_app.producer_or_acquire() as producer:
            for i in range(chains):
                chain_app.send_task(HOP_TASK, args=[f"c{i}", hops], producer=producer)
        enqueued = time.time() - started
        deadline = time.monotonic() + 120 + chains * hops / 10
        while int(client.get(DONE_KEY) or 0) < chains:
            if time.monotonic() > deadline:
                raise RuntimeError(f"chains: only {client.get(DONE_KEY)!r}/{chains} finished")
            time.sleep(0.2)
        last = float(client.get(LAST_KEY) or 0)
        cpu = meter.stop()
    finally:
        procs.stop(worker)
        chain_app.close()
    return BaselineRun(
        chains=chains, hops=hops, seconds=last - started, enqueue_seconds=enqueued, cpu=cpu
    )
