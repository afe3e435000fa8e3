"""What the Prometheus metrics cost (issue 36: no worse than 3 %): the engine and intake with
metrics on (every process recording into NOTIFLOW_METRICS_DIR, as docs/design/observability.md "Metrics"
deploys them) against off (no directory: nothing recorded), in the same round, the two sides
alternated from one round to the next so neither always runs first on a warmer machine."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from bench.cpu import CpuMeter, children
from bench.engine import EngineRun, engine_run
from bench.intake import IntakeRun, http_run

GUNICORN = "gunicorn (master and workers)"
POOL = "worker pool processes"


@dataclass(frozen=True)
class MetricsCostRound:
    engine_off: EngineRun
    engine_on: EngineRun
    intake_off: IntakeRun
    intake_on: IntakeRun


def metrics_cost_run(bench: Any, say: Callable[[str], None], *, round_: int) -> MetricsCostRound:
    """One round: the engine (K triggers x 3 steps) and intake (POST /api/triggers/ from 16
    clients) each with metrics off and on; the on side's files are scraped once at the end, so
    a run that recorded nothing shows."""
    a, procs = bench.args, bench.procs
    directory = bench.config.workdir / "metrics"
    on = {"NOTIFLOW_METRICS_DIR": str(directory)}
    sides = [("off", {}), ("on", on)]
    if round_ % 2:
        sides.reverse()
    engine: dict[str, EngineRun] = {}
    intake: dict[str, IntakeRun] = {}
    for side, env in sides:
        say(f"metrics {side}: engine, {a.triggers} triggers x 3 steps (round {round_ + 1})")
        shutil.rmtree(directory, ignore_errors=True)
        engine[side] = engine_run(procs, triggers=a.triggers, tag=f"metrics{side}{round_}", env=env)
        say(f"  {engine[side]}")
    for side, env in sides:
        say(f"metrics {side}: intake, {a.intake_requests} POST /api/triggers/ (round {round_ + 1})")
        web = procs.web(bench.args.web, DATABASE_URL=bench.config.db_url("sql"), **env)
        meter = CpuMeter({GUNICORN: partial(gunicorn_pids, web.pid)})
        meter.start()
        try:
            run = http_run(
                port=bench.config.port,
                api_key=bench.api_key,
                workflow_key=bench.intake_workflow.key,
                requests=a.intake_requests,
            )
            intake[side] = replace(run, cpu=meter.stop())
        finally:
            procs.stop(web)
        say(f"  {intake[side]}")
    recorded = sorted(path.parent.name for path in directory.glob("*/*.db"))
    if not recorded:
        raise RuntimeError(f"metrics on, yet no process wrote a file under {directory}")
    return MetricsCostRound(engine["off"], engine["on"], intake["off"], intake["on"])


def engine_cpu_ms_per_step(run: EngineRun) -> float:
    """The worker pool's CPU per step: what recording adds to, less moved by the machine's other
    load than steps per second."""
    return run.cpu.get(POOL, 0.0) * 1000 / max(1, run.steps)


def intake_cpu_ms_per_request(run: IntakeRun) -> float:
    return run.cpu.get(GUNICORN, 0.0) * 1000 / max(1, run.requests)


def gunicorn_pids(master: int) -> list[int]:
    return [master, *children(master)]
