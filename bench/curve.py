"""The scaling curve (issue 20): engine steps/s and CPU per step for 1, 2, 4, 8 and 16 worker
processes on one worker host, then 1, 2 and 3 worker hosts of HOST_PROCESSES each, with
PostgreSQL's own CPU and the per-step SQL limit from plain psycopg (the same statements, as many
processes) beside each point.

The "hosts" here are separate `celery worker` instances with their own node names (host1@...,
host2@...), as each machine would run one; on this one machine they share its cores and reach
PostgreSQL and the broker over loopback. What crosses a real network is `make hosts`'s concern.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from bench.cpu import OTHERS, WALL
from bench.infra import Layout

PROCESSES = (1, 2, 4, 8, 16)
HOSTS = (1, 2, 3)
# One host of these is also a point of PROCESSES: the hosts' line starts from it.
HOST_PROCESSES = 4
POSTGRES = "postgres: worker backends"


@dataclass(frozen=True)
class CurvePoint:
    hosts: int
    processes: int  # in all
    steps_per_second: float
    cpu_ms_per_step: float  # ours: workers, beat, PostgreSQL, Redis, the producer
    postgres_ms_per_step: float  # the backends serving the workers
    postgres_cores: float  # PostgreSQL CPU seconds per wall second during the run
    machine_cores: float  # every process's CPU seconds per wall second (2 = both cores busy)
    sql_limit: float  # the same SQL from as many plain psycopg processes (steps/s); 0: not run

    @property
    def label(self) -> str:
        if self.hosts == 1:
            return f"{self.processes} process{'es' if self.processes > 1 else ''}"
        return f"{self.hosts} hosts x {self.processes // self.hosts}"


def _point(run: Any, *, hosts: int, processes: int, sql_limit: float) -> CurvePoint:
    wall = run.cpu.get(WALL) or run.seconds
    ours = sum(v for k, v in run.cpu.items() if k not in (OTHERS, WALL))
    steps = max(1, run.steps)
    return CurvePoint(
        hosts=hosts,
        processes=processes,
        steps_per_second=run.steps_per_second,
        cpu_ms_per_step=1000 * ours / steps,
        postgres_ms_per_step=1000 * run.cpu.get(POSTGRES, 0.0) / steps,
        postgres_cores=run.cpu.get(POSTGRES, 0.0) / wall,
        machine_cores=(ours + run.cpu.get(OTHERS, 0.0)) / wall,
        sql_limit=sql_limit,
    )


def curve_run(bench: Any, say: Callable[[str], None]) -> list[list[CurvePoint]]:
    """`--repeat` rounds of the whole curve, each point once per round (a change in the
    machine's load then spreads over every point rather than bending the curve)."""
    return [curve_round(bench, say, round_) for round_ in range(bench.args.repeat)]


def curve_round(bench: Any, say: Callable[[str], None], round_: int) -> list[CurvePoint]:
    from bench.dblimit import dblimit_run, engine_statements
    from bench.engine import engine_run

    triggers, points = bench.args.curve_triggers, []
    statements = engine_statements()
    say = _numbered(say, round_)

    def sql_limit(processes: int) -> float:
        run = dblimit_run(
            bench.config.db_url("sql"),
            sql=statements,
            workflow=bench.sql_workflow.pk,
            version=bench.sql_version,
            triggers=triggers,
            processes=processes,
        )
        return run.steps_per_second

    for processes in PROCESSES:
        say(f"curve: {triggers} triggers, 1 worker host x {processes} processes")
        layout = Layout(f"x{processes}", args=("-c", str(processes)))
        run = engine_run(bench.procs, triggers=triggers, tag=f"curve{processes}", layout=layout)
        points.append(_point(run, hosts=1, processes=processes, sql_limit=sql_limit(processes)))
        say(f"  {points[-1]}")
    for hosts in HOSTS[1:]:
        processes = hosts * HOST_PROCESSES
        say(f"curve: {triggers} triggers, {hosts} worker hosts x {HOST_PROCESSES} processes")
        layout = Layout(f"{hosts} hosts", workers=hosts, args=("-c", str(HOST_PROCESSES)))
        run = engine_run(bench.procs, triggers=triggers, tag=f"hosts{hosts}", layout=layout)
        points.append(_point(run, hosts=hosts, processes=processes, sql_limit=0.0))
        say(f"  {points[-1]}")
    return points


def _numbered(say: Callable[[str], None], round_: int) -> Callable[[str], None]:
    return lambda message: say(message.replace("curve:", f"curve (round {round_ + 1}):", 1))


def curve_medians(rounds: list[list[CurvePoint]]) -> list[CurvePoint]:
    """Each point's median over the rounds, figure by figure."""
    numbers = [f.name for f in fields(CurvePoint) if f.name not in ("hosts", "processes")]
    return [
        replace(
            same[0],
            **{name: statistics.median(getattr(p, name) for p in same) for name in numbers},
        )
        for same in zip(*rounds, strict=True)
    ]


def curve_table(rounds: list[list[CurvePoint]]) -> list[str]:
    points = curve_medians(rounds)
    lines = [
        "Scaling curve: engine steps/s against worker processes and worker hosts, "
        "CPU per step, and the same SQL from plain psycopg"
        + (
            f" (medians of {len(rounds)} rounds; steps/s of each round in brackets)"
            if len(rounds) > 1
            else ""
        ),
        "",
        "| workers | engine steps/s | CPU ms per step (ours) | of which PostgreSQL | "
        "PostgreSQL cores busy | machine cores busy | SQL limit, plain psycopg (steps/s) | "
        "engine / SQL limit |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, p in enumerate(points):
        each = [f"{r[i].steps_per_second:,.0f}" for r in rounds]
        rate = f"{p.steps_per_second:,.0f}" + (f" ({', '.join(each)})" if len(rounds) > 1 else "")
        limit = f"{p.sql_limit:,.0f}" if p.sql_limit else "-"
        share = f"{p.steps_per_second / p.sql_limit:.2f}" if p.sql_limit else "-"
        lines.append(
            f"| {p.label} | {rate} | {p.cpu_ms_per_step:.2f} | "
            f"{p.postgres_ms_per_step:.2f} | {p.postgres_cores:.2f} | {p.machine_cores:.2f} | "
            f"{limit} | {share} |"
        )
    return lines


def curve_chart(rounds: list[list[CurvePoint]], path: Path, *, title: str) -> None:
    """Two panels: steps/s against processes (engine on one host, the SQL limit, hosts), and
    CPU per step (ours, PostgreSQL's share); medians over the rounds."""
    points = curve_medians(rounds)
    import matplotlib

    matplotlib.use("Agg")  # no screen: render to a file
    import matplotlib.pyplot as plt

    one = [p for p in points if p.hosts == 1]
    hosts = [p for p in one if p.processes == HOST_PROCESSES] + [p for p in points if p.hosts > 1]
    figure, (rate, cost) = plt.subplots(1, 2, figsize=(11, 4.2))
    x = [p.processes for p in one]
    rate.plot(x, [p.steps_per_second for p in one], "o-", label="engine, 1 worker host")
    rate.plot(x, [p.sql_limit for p in one], "s--", label="same SQL, plain psycopg")
    rate.plot(
        [p.processes for p in hosts],
        [p.steps_per_second for p in hosts],
        "^-",
        label=f"engine, 1-3 hosts x {HOST_PROCESSES}",
    )
    for p in hosts[1:]:
        rate.annotate(f"{p.hosts} hosts", (p.processes, p.steps_per_second), fontsize=8)
    _axes(rate, sorted({*x, *(p.processes for p in hosts)}), "worker processes in all", "steps/s")
    cost.plot(x, [p.cpu_ms_per_step for p in one], "o-", label="ours in all")
    cost.plot(x, [p.postgres_ms_per_step for p in one], "s-", label="PostgreSQL backends")
    cost.plot(x, [p.machine_cores for p in one], "x:", label="machine cores busy")
    _axes(cost, x, "worker processes (1 host)", "CPU ms per step / cores")
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _axes(axes: Any, ticks: list[int], xlabel: str, ylabel: str) -> None:
    """Processes on a log-2 scale, labelled as plain numbers; values from zero."""
    from matplotlib.ticker import ScalarFormatter

    axes.set_xscale("log", base=2)
    axes.set_xticks(ticks)
    axes.get_xaxis().set_major_formatter(ScalarFormatter())
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_ylim(bottom=0)
    axes.legend(fontsize=8)
    axes.grid(alpha=0.3)
