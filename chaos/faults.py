"""The faults: SIGKILL a whole worker (and start a new one) or one of its pool processes, flush or
restart Redis (with RabbitMQ as the broker: restart RabbitMQ in the flush's place), restart
PostgreSQL, take the webhook receiver down for a few seconds. One every few seconds, spread over
the run."""

from __future__ import annotations

import os
import random
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.support.stack import Process, Stack, wait_for

KILL_WORKER = "kill-worker"
KILL_POOL_PROCESS = "kill-pool-process"
REDIS_FLUSH = "redis-flush"
REDIS_RESTART = "redis-restart"
RABBITMQ_RESTART = "rabbitmq-restart"
PG_RESTART = "pg-restart"
RECEIVER_DOWN = "receiver-down"


def fault_plan(
    *,
    kills: int,
    flushes: int,
    redis_restarts: int,
    pg_restarts: int,
    receiver_outages: int = 0,
    flush: str = REDIS_FLUSH,
) -> list[str]:
    """Faults in the order they will happen: each kind spread evenly over the run, kills
    alternating between a pool process (a step dies mid-flight, the worker lives) and a whole
    worker (main process and pool together; a replacement starts). `flush` is the broker's fault
    in the flushes' slots: REDIS_FLUSH, or RABBITMQ_RESTART when RabbitMQ is the broker."""
    spread: list[tuple[float, int, str]] = []
    for order, (kind, count) in enumerate(
        (("kill", kills), (flush, flushes), (PG_RESTART, pg_restarts)),
    ):
        spread += [((i + 0.5) / count, order, kind) for i in range(count)]
    # A Redis restart goes just after the PostgreSQL restart when both are asked for.
    spread += [((i + 0.5) / redis_restarts, 3, REDIS_RESTART) for i in range(redis_restarts)]
    # Receiver outages lean late, when most triggers are completing and their events flow.
    spread += [((i + 0.75) / receiver_outages, 4, RECEIVER_DOWN) for i in range(receiver_outages)]
    plan: list[str] = []
    kills_so_far = 0
    for _, _, kind in sorted(spread):
        if kind == "kill":
            kind = KILL_POOL_PROCESS if kills_so_far % 2 == 0 else KILL_WORKER
            kills_so_far += 1
        plan.append(kind)
    return plan


def child_pids(pid: int) -> list[int]:
    """Direct children of `pid` (a Celery main process: its prefork pool), from /proc."""
    children = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(
                line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line
            )
        except OSError:
            continue  # it exited while we looked
        if fields.get("PPid", "").strip() == str(pid):
            children.append(int(fields["Pid"]))
    return children


@dataclass
class FaultLog:
    kind: str
    at: float
    in_flight: int | None
    detail: str


class WorkerPool:
    """The live Celery workers; kills and replacements go through here (thread-safe)."""

    def __init__(
        self, stack: Stack, *, concurrency: int, rng: random.Random, pool: str = "prefork"
    ):
        self.stack = stack
        self.concurrency = concurrency
        self.pool = pool
        self.rng = rng
        self.lock = threading.Lock()
        # Pids we killed, or that died and were replaced: not counted again.
        self.gone: set[int] = set()
        self.started = 0

    def start(self) -> Process:
        with self.lock:
            self.started += 1
            return self.stack.worker(
                f"w{self.started}", concurrency=self.concurrency, pool=self.pool
            )

    def alive(self) -> list[Process]:
        with self.lock:
            return [
                p
                for p in self.stack.processes
                if p.popen.poll() is None and p.popen.pid not in self.gone
            ]

    def kill_worker(self) -> str:
        victim = self.rng.choice(self.alive())
        with self.lock:
            self.gone.add(victim.popen.pid)
        os.killpg(victim.popen.pid, signal.SIGKILL)
        victim.popen.wait(timeout=30)
        replacement = self.start()
        return f"{victim.name} (pid {victim.popen.pid}) and its pool; started {replacement.name}"

    def kill_pool_process(self) -> str:
        if self.pool != "prefork":
            # Threads have no process of their own: a step's process dying is the worker's.
            return "no pool process (threads): " + self.kill_worker()

        # Only a worker that is up: a pool process killed while the pool is still starting takes
        # the whole worker down ("Could not start worker processes"), which is not a step dying.
        def worker_with_pool() -> tuple[Process, list[int]] | None:
            ready = [p for p in self.alive() if f"{p.name}@" in p.log() and " ready." in p.log()]
            candidates = [(p, child_pids(p.popen.pid)) for p in ready]
            candidates = [(p, pids) for p, pids in candidates if pids]
            return self.rng.choice(candidates) if candidates else None

        worker, pids = wait_for(worker_with_pool, timeout=30, interval=0.1, message="a pool")
        pid = self.rng.choice(pids)
        os.kill(pid, signal.SIGKILL)
        return f"pool process {pid} of {worker.name}"

    def replace_the_dead(self, *, replace: bool = True) -> list[str]:
        """Do what a process supervisor does: start a new worker for each one that exited by
        itself (not killed by us). Returns what died, with the last error it logged."""
        with self.lock:
            dead = [
                p
                for p in self.stack.processes
                if p.popen.poll() is not None and p.popen.pid not in self.gone
            ]
            self.gone.update(p.popen.pid for p in dead)
        for _ in dead if replace else ():
            self.start()
        return [f"{p.name}: {_last_error(p.log())}" for p in dead]


def _last_error(log: str) -> str:
    lines = [line for line in log.splitlines() if "CRITICAL" in line or "Error" in line]
    return (lines[-1] if lines else log.strip().splitlines()[-1] if log.strip() else "?")[:300]


class FaultInjector(threading.Thread):
    """Runs the plan, one fault every `interval` seconds, until done or stopped."""

    def __init__(
        self,
        plan: list[str],
        actions: dict[str, Callable[[], str]],
        *,
        interval: float,
        in_flight: Callable[[], int | None],
        clock: Callable[[], float],
        say: Callable[[str], None],
    ):
        super().__init__(name="chaos-faults", daemon=True)
        self.plan = plan
        self.actions = actions
        self.interval = interval
        self.in_flight = in_flight
        self.clock = clock
        self.say = say
        self.stopping = threading.Event()
        self.log: list[FaultLog] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            for kind in self.plan:
                if self.stopping.wait(self.interval):
                    return
                in_flight = self.in_flight()
                detail = self.actions[kind]()
                self.log.append(FaultLog(kind, self.clock(), in_flight, detail))
                self.say(f"fault {kind}: {detail} ({in_flight} trigger(s) in flight)")
        except BaseException as exc:  # reported by the harness, which then fails the run
            self.error = exc

    def count(self, kind: str) -> int:
        return sum(1 for entry in self.log if entry.kind == kind)
