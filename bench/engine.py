"""Engine throughput (figure 1 and 6), queries per step, and worker memory (figure 7).

Imported only after django.setup() (see bench.__main__).
"""

from __future__ import annotations

import re
import shutil
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import connection

from bench.cpu import PRODUCER_BACKEND, CpuMeter, backends, children, redis_group
from bench.fixtures import (
    ENGINE_DEFINITION,
    ENGINE_STEPS_PER_TRIGGER,
    completion_of,
    steps_logged,
    triggers_fire,
    use_database,
    wait_finished,
    workflow_new,
)
from bench.infra import STANDARD, Layout, Proc, Processes, redis_flush
from bench.profile import Profiler
from workflows.models import Workflow

_TASK_DONE = re.compile(r"Task workers\.execute_node\[[^\]]+\] succeeded in [\d.e-]+s: (.*)$", re.M)


@dataclass(frozen=True)
class EngineRun:
    triggers: int
    steps: int
    seconds: float  # first trigger created -> last trigger completed
    enqueue_seconds: float  # how long the producer took to create them all
    tasks: int  # execute_node tasks the worker ran
    idle_tasks: int  # of which found nothing to claim (duplicate or early nudges)
    db: dict[str, int]  # pg_stat_database deltas over the run
    cpu: dict[str, float]  # CPU seconds per component over the run

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else 0.0


def db_counters() -> dict[str, int]:
    """This database's cumulative counters (sessions opened, transactions, rows written), and
    the server's WAL position in bytes (WAL is server-wide: the bench runs nothing else)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute(
            """
            SELECT sessions, xact_commit + xact_rollback, tup_inserted, tup_updated, blks_read,
                   pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint
            FROM pg_stat_database WHERE datname = current_database()
            """
        )
        row = cursor.fetchone()
    assert row is not None
    names = ("sessions", "transactions", "inserted", "updated", "blks_read", "wal_bytes")
    return dict(zip(names, row, strict=True))


def _task_results(log: str) -> tuple[int, int]:
    results = _TASK_DONE.findall(log)
    return len(results), sum(1 for r in results if r.strip() == "None")


def engine_meter(procs: Processes, workers: list[Proc], beat: Proc, database: str) -> CpuMeter:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        row = cursor.fetchone()
    own = row[0] if row else 0
    name, server = procs.config.db_name(database), procs.config.server_url
    return CpuMeter(
        {
            "worker pool processes": lambda: [p for w in workers for p in children(w.pid)],
            "worker main process": lambda: [w.pid for w in workers],
            "beat": lambda: [beat.pid],
            "postgres: worker backends": lambda: [p for p in backends(server, name) if p != own],
            PRODUCER_BACKEND: lambda: [own],
            **redis_group(procs.config.redis_url),
        }
    )


def engine_run(
    procs: Processes,
    *,
    triggers: int,
    tag: str,
    database: str = "engine",
    profile_to: Path | None = None,
    profile_idle: bool = True,
    layout: Layout = STANDARD,
    definition: dict[str, Any] = ENGINE_DEFINITION,
    env: dict[str, str] | None = None,
    warmup: int = 0,
) -> EngineRun:
    """K triggers of email -> sms -> email through `celery worker` (and beat, as deployed);
    `layout` arranges the worker processes otherwise (the pool comparison); `definition` and the
    workers' `env` change the workflow and its sends (the link: their providers) or what they
    record (the metrics' cost: bench/metrics_cost.py). With `warmup`, that many triggers of a
    workflow of their own run to the end first, unmeasured: every pool process or thread has
    made its connections (PostgreSQL, the provider's) before the meter starts, as in a worker
    that has run for a while."""
    redis_flush(procs.config)
    use_database(procs.config.db_name(database))
    workflow = workflow_new(tag, definition)
    url = procs.config.db_url(database)
    extra = {**(env or {}), "DATABASE_URL": url}
    workers = layout.start(procs, name="worker", app="notiflow", **extra)
    worker = workers[0]
    beat = procs.beat(**extra)
    if warmup:
        warm = workflow_new(f"{tag}-warm", definition)
        triggers_fire(warm, warmup, prefix=f"{tag}-warm")
        wait_finished(warm.pk, warmup, timeout=120 + warmup)
    profiler = Profiler(worker, profile_to, idle=profile_idle) if profile_to else None
    before = db_counters()
    meter = engine_meter(procs, workers, beat, database)
    meter.start()
    try:
        enqueue = triggers_fire(workflow, triggers, prefix=tag)
        timeout = 120 + triggers * ENGINE_STEPS_PER_TRIGGER / 5
        done = wait_finished(workflow.pk, triggers, timeout=timeout)
        cpu = meter.stop()
        after = db_counters()
    finally:
        if profiler:
            profiler.stop()
        procs.stop(beat)
        for one in workers:
            procs.stop(one)
    tasks, idle = _task_results("".join(one.log() for one in workers))
    steps = steps_logged(workflow.pk)
    use_database(procs.config.db_name("engine"))
    return EngineRun(
        triggers=triggers,
        steps=steps,
        seconds=done.seconds,
        enqueue_seconds=enqueue,
        tasks=tasks,
        idle_tasks=idle,
        db={k: after[k] - before[k] for k in after},
        cpu=cpu,
    )


@dataclass(frozen=True)
class MemoryRun:
    steps: int
    warmup_steps: int
    rss_start_kib: int  # worker + pool processes, before any task
    rss_warm_kib: int  # after the warm-up steps
    rss_end_kib: int
    child_growth_kib: int  # the largest growth of one pool process after warm-up
    steps_per_second: float

    @property
    def growth_kib(self) -> int:
        return self.rss_end_kib - self.rss_warm_kib


# Triggers kept in flight by the memory run's producer: enough to keep the worker busy, few enough
# that no nudge waits in the queue for NOTIFLOW_RENUDGE_AFTER_SECONDS (whose re-nudges would
# otherwise multiply the queue, see BENCHMARKS.md).
IN_FLIGHT = 300


def triggers_feed(
    workflow: Workflow, count: int, *, prefix: str, in_flight: int, before: int = 0
) -> None:
    """Create `count` triggers, keeping at most `in_flight` of them unfinished at any time."""
    created = 0
    while created < count:
        done = completion_of(workflow.pk)
        room = in_flight - (before + created - done.completed - done.failed)
        if room < in_flight // 3:
            time.sleep(0.2)
            continue
        batch = min(room, count - created)
        triggers_fire(workflow, batch, prefix=f"{prefix}-{created}")
        created += batch


def memory_run(procs: Processes, *, steps: int, warmup_steps: int = 600) -> MemoryRun:
    """Worker RSS before and after `steps` engine steps (after a warm-up that loads the code)."""
    redis_flush(procs.config)
    workflow = workflow_new("memory", ENGINE_DEFINITION)
    worker = procs.worker()
    beat = procs.beat()
    try:
        start = worker.rss_kib()
        warm_triggers = max(1, warmup_steps // ENGINE_STEPS_PER_TRIGGER)
        triggers_fire(workflow, warm_triggers, prefix="warm")
        wait_finished(workflow.pk, warm_triggers, timeout=300)
        warm = worker.rss_kib()
        count = max(1, steps // ENGINE_STEPS_PER_TRIGGER)
        triggers_feed(workflow, count, prefix="mem", in_flight=IN_FLIGHT, before=warm_triggers)
        done = wait_finished(workflow.pk, warm_triggers + count, timeout=600 + count)
        end = worker.rss_kib()
    finally:
        procs.stop(beat)
        procs.stop(worker)
    children = [pid for pid in warm if pid != worker.pid and pid in end]
    return MemoryRun(
        steps=count * ENGINE_STEPS_PER_TRIGGER,
        warmup_steps=warm_triggers * ENGINE_STEPS_PER_TRIGGER,
        rss_start_kib=sum(start.values()),
        rss_warm_kib=sum(warm.values()),
        rss_end_kib=sum(end.values()),
        child_growth_kib=max((end[p] - warm[p] for p in children), default=0),
        steps_per_second=(warm_triggers + count) * ENGINE_STEPS_PER_TRIGGER / done.seconds,
    )


@dataclass(frozen=True)
class QueryCount:
    steps: int
    tasks: int
    round_trips: float  # per step: simple-protocol queries + extended-protocol syncs
    statements: float  # per step, BEGIN and COMMIT included
    transactions: float  # per step: explicit BEGINs + statements in autocommit
    connections: float  # per step: new PostgreSQL connections opened
    statements_of_one_step: list[str]


def _parse_traces(trace_dir: Path) -> tuple[Counter[str], list[str]]:
    """Sum the client messages of every execute_node task in the traces (see bench.traced)."""
    totals: Counter[str] = Counter()
    example: list[str] = []
    for path in trace_dir.glob("*.trace"):
        current: Counter[str] = Counter()
        texts: list[str] = []
        in_transaction = False
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("TASK\t"):
                _, name, conns = line.split("\t")
                if name == "workers.execute_node":
                    current["connections"] += int(conns)
                    current["tasks"] += 1
                    totals.update(current)
                    if not example and len(texts) > 3:
                        example = texts
                current, texts, in_transaction = Counter(), [], False
                continue
            fields = line.split("\t")
            if fields[0] not in ("F", "B"):  # a statement's text goes on over several lines
                if texts and len(texts[-1]) < 120:
                    texts[-1] = (texts[-1] + " " + " ".join(line.split()))[:120]
                continue
            if len(fields) < 3 or fields[0] != "F":
                continue
            kind, body = fields[2].strip(), " ".join(fields[3].split()) if len(fields) > 3 else ""
            if kind in ("Query", "Sync"):
                current["round_trips"] += 1
            if kind not in ("Query", "Execute"):
                continue
            current["statements"] += 1
            texts.append(body[:120])
            command = body.strip('"').upper()
            if command == "BEGIN":
                in_transaction = True
                current["transactions"] += 1
            elif command in ("COMMIT", "ROLLBACK"):
                in_transaction = False
            elif not in_transaction:
                current["transactions"] += 1  # an autocommit statement is its own transaction
        # A trailing part without its TASK line (the process was stopped mid-task) is ignored.
    return totals, example


def queries_per_step(procs: Processes, *, triggers: int = 50) -> QueryCount:
    """Run a few triggers through `celery -A bench.traced worker` and count what each step sends.

    Counts every execute_node task, including the ones that found nothing to claim, and divides
    by the steps logged: the cost per useful step.
    """
    redis_flush(procs.config)
    trace_dir = procs.config.workdir / "trace"
    shutil.rmtree(trace_dir, ignore_errors=True)
    workflow = workflow_new("queries", ENGINE_DEFINITION)
    worker = procs.worker(name="worker-traced", app="bench.traced", BENCH_TRACE_DIR=str(trace_dir))
    try:
        triggers_fire(workflow, triggers, prefix="queries")
        wait_finished(workflow.pk, triggers, timeout=120 + triggers)
    finally:
        procs.stop(worker)
    totals, example = _parse_traces(trace_dir)
    steps = steps_logged(workflow.pk) or 1
    return QueryCount(
        steps=steps,
        tasks=totals["tasks"],
        round_trips=totals["round_trips"] / steps,
        statements=totals["statements"] / steps,
        transactions=totals["transactions"] / steps,
        connections=totals["connections"] / steps,
        statements_of_one_step=example,
    )
