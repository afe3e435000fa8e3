"""The pool comparison (issue 21): the engine and the floor under each arrangement of worker
processes, in one run, each measured as figures 1 and 2 are (same triggers, same database
copies, same broker). What a step mostly does is wait (PostgreSQL, the broker, a provider), so
the question is which arrangement keeps the cores busy for the least CPU per step.

gevent is not among them: psycopg (3.1.14 and later) waits cooperatively under it by itself, but
Django keeps a connection per thread, which under gevent is per greenlet, and Celery's gevent
pool runs each task in a greenlet of its own: every step opened a PostgreSQL connection of its
own, and a run at -c 32 exhausted the server's 100 connections within seconds. Making it work
needs a connection pool of ours (Django's `pool` option with psycopg_pool): a change, not a
setting. eventlet: psycopg 3 does not support it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from bench.infra import Layout


def layouts(concurrency: int) -> list[Layout]:
    """Prefork (the default, `concurrency` processes) and around it; threads; solo x N separate
    workers; workers x threads."""
    half, double = max(1, concurrency // 2), concurrency * 2
    found = [
        Layout(f"prefork x{concurrency} (default)"),
        Layout(f"prefork x{half}", args=("-c", str(half))),
        Layout(f"prefork x{double}", args=("-c", str(double))),
        Layout(f"threads x{concurrency}", args=("--pool", "threads", "-c", str(concurrency))),
        Layout(f"solo, {half} workers", workers=half, args=("--pool", "solo")),
        Layout(f"solo, {concurrency} workers", workers=concurrency, args=("--pool", "solo")),
        Layout(
            f"2 workers x threads {half}", workers=2, args=("--pool", "threads", "-c", str(half))
        ),
        Layout(f"{half} workers x threads 2", workers=half, args=("--pool", "threads", "-c", "2")),
    ]
    return found


@dataclass(frozen=True)
class PoolResult:
    layout: Layout
    engine: Any  # bench.engine.EngineRun
    floor: Any  # bench.floor.FloorRun


def pools_run(bench: Any, say: Any) -> list[PoolResult]:
    from django.conf import settings

    from bench.engine import engine_run
    from bench.floor import floor_run

    results = []
    for index, layout in enumerate(layouts(settings.CELERY_WORKER_CONCURRENCY)):
        say(f"pools: {layout.name}: engine, then floor ({bench.args.triggers} triggers)")
        engine = engine_run(
            bench.procs, triggers=bench.args.triggers, tag=f"pool{index}", layout=layout
        )
        floor = floor_run(
            bench.procs,
            url=bench.config.db_url("sql"),
            workflow=bench.sql_workflow.pk,
            version=bench.sql_version,
            triggers=bench.args.triggers,
            layout=layout,
        )
        results.append(PoolResult(layout, engine, floor))
        say(f"  engine {engine.steps_per_second:.1f} steps/s, floor {floor.steps_per_second:.1f}")
    return results


def pools_table(results: list[PoolResult], db_limit: float | None) -> list[str]:
    """The comparison as a markdown table: throughput, CPU per step, and the ratios."""
    from bench.rows import cpu_per_unit

    lines = [
        f"Pool comparison ({os.cpu_count()} CPUs): engine and floor under each arrangement",
        "",
        "| arrangement | engine steps/s | engine CPU ms/step | floor steps/s | floor CPU ms/step"
        " | engine/floor | engine/db limit |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        e, f = r.engine, r.floor
        e_rate, f_rate = e.steps_per_second, f.steps_per_second
        db = f"{e_rate / db_limit:.2f}" if db_limit else "-"
        lines.append(
            f"| {r.layout.name} | {e_rate:.1f} | {cpu_per_unit(e, e.steps):.2f} | {f_rate:.1f} |"
            f" {cpu_per_unit(f, f.steps):.2f} | {e_rate / f_rate:.2f} | {db} |"
        )
    return lines
