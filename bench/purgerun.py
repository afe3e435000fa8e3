"""The `purge` part (issue 51 §4): retention's purge beside the engine, the step log's partitions
dropped whole against its rows deleted one by one, and the engine's throughput meanwhile against
the engine alone, in one run.

Per round (`--repeat`): the engine alone (`--triggers` triggers of email -> sms -> email), then,
each way (bench/purge.py: `rows`, the step logs in the old table as before the upgrade; `drop`,
in their day's partition), a database of its own loaded with `--purge-runs` finished runs of the
day 31 days ago and the engine started again; once a tenth of its steps are logged, `manage.py
purge_logs --older-than 30d` runs on the loaded database, on the same server, as an operator's
daily cron runs it.

The engine's rate while the purge runs is the steps it logged between the purge's start and end,
over that time; it is compared with the engine alone over the same stretch of its run: from the
moment the alone run had logged as many steps as the purge waited for (plus the purge's own lag
behind that moment), for as long as the purge ran. The engine's rate is not flat over a run: while
the bench still fires its triggers (the first third or so), the intake takes CPU the workers
have afterwards, and a purge started at a tenth of the steps runs mostly then; against the alone
run's whole steady state (the steps between a tenth and nine tenths logged, also printed) it would
be charged for the intake's share too. A purge that outlasts the engine's backlog is flagged: its
window's rate would be the tail's.

Imported only after django.setup() (see bench.__main__).
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from bench.engine import EngineRun, engine_run
from bench.fixtures import ENGINE_STEPS_PER_TRIGGER
from bench.purge import (
    ROOT,
    WAYS,
    database_drop,
    purge_checked,
    purge_command,
    purge_load,
    purge_template,
)
from workers.sql import PARTITIONED

# The engine's share of its steps logged before the purge starts, and the alone run's steady
# window (from this share of its steps to its complement).
STEADY_FROM = 0.1
# How long the engine may take to log that share (its workers' start included).
START_DEADLINE_SECONDS = 180


@dataclass(frozen=True)
class Beside:
    """One purge run beside the engine."""

    way: str
    step_logs: int
    load_seconds: float
    purge_seconds: float
    engine_per_second: float  # steps logged in the purge's window, per second
    alone_per_second: float  # the engine alone over the same stretch of its run (_alone_shift)
    outlasted: bool  # the purge ended after the engine's last step
    dropped: str  # the partitions it dropped, in a few words (dropped_summary)
    phases: str = ""  # the engine's rate in each of the purge's phases (phases_summary)

    def __str__(self) -> str:
        late = " (the purge outlasted the engine's backlog)" if self.outlasted else ""
        phases = f"; by phase: {self.phases}" if self.phases else ""
        return (
            f"{self.way}: {self.step_logs:,} step logs purged in {self.purge_seconds:.1f} s beside "
            f"the engine at {self.engine_per_second:.1f} steps/s (alone over the same stretch "
            f"{self.alone_per_second:.1f}){late}; loaded in "
            f"{self.load_seconds:.0f} s; {self.dropped}{phases}"
        )


@dataclass
class PurgeRound:
    alone: float = 0.0  # the engine's steady steps/s, alone
    alone_finished: list[datetime] = field(default_factory=list)  # when each of its steps ended
    engine: EngineRun | None = None
    beside: dict[str, Beside] = field(default_factory=dict)


def purge_part_run(bench: Any, say: Any) -> list[PurgeRound]:
    config, a = bench.config, bench.args
    server = f"{config.server_url}/postgres"  # bench.purge's functions replace its database
    engine_url = config.db_url("engine")
    template = config.db_name("purge")
    rounds = []
    try:
        database_drop(server, template)
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{template}" TEMPLATE "{config.db_name("template")}"')
        purge_template(server, template)
        for round_ in range(a.repeat):
            one = PurgeRound()
            say(f"purge: the engine alone, {a.triggers} triggers (round {round_ + 1})")
            tag = f"purge-alone{round_}"
            settle(server, engine_url)
            one.engine = engine_run(bench.procs, triggers=a.triggers, tag=tag)
            one.alone_finished = _finished(engine_url, tag)
            one.alone = _steady_rate(one.alone_finished)
            say(f"  {one.engine}; steady {one.alone:.1f} steps/s")
            for case, way, runs, duty in cases(a):
                name = config.db_name(f"purge_{way}")
                say(f"purge: loading {runs:,} finished runs, {case}")
                loaded = purge_load(server, template, name, runs=runs, way=way)
                settle(server, engine_url)
                try:
                    say(f"purge: {case} beside the engine, {a.triggers} triggers")
                    # A key without a dot: one names its queue (docs/design/rules.md, rule 11).
                    tag = f"purge-{re.sub(r'[^a-z0-9]+', '-', case)}{round_}"
                    one.beside[case] = _beside(
                        bench, loaded, case=case, tag=tag, duty=duty, alone=one.alone_finished
                    )
                    say(f"  {one.beside[case]}")
                finally:
                    database_drop(server, name)
            rounds.append(one)
    finally:
        database_drop(server, template)
    return rounds


def settle(server: str, engine: str) -> None:
    """Before each engine run: the engine's database vacuumed and analysed (as autovacuum, off on
    the bench's server, would have done: the earlier runs' dead rows), then the server's dirty
    pages written out and the kernel's too, so that the load's writes, which a day's history a
    month old would have had long since, are not flushed during the measured window (where they
    halved the engine's rate beside even a paced purge, whose own writes are the ones measured).
    Each engine run starts from the same state."""
    with psycopg.connect(engine, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
    os.sync()


def cases(a: Any) -> list[tuple[str, str, int, float]]:
    """(case, way, runs, duty cycle): each way at full speed, then the drop way paced at
    `--purge-duty-cycle` on a tenth of the runs (so that its purge takes about as long)."""
    paced = a.purge_duty_cycle
    return [
        *((way, way, a.purge_runs, 1.0) for way in WAYS),
        (f"drop paced {paced:g}", "drop", max(1, round(a.purge_runs * paced)), paced),
    ]


def _beside(
    bench: Any, loaded: Any, *, case: str, tag: str, duty: float, alone: list[datetime]
) -> Beside:
    """The engine in the bench's thread; the purge in another, once the engine has logged
    STEADY_FROM of its steps (an engine that never gets there fails by its own timeout, the
    purge's thread by START_DEADLINE_SECONDS)."""
    a = bench.args
    engine_url = bench.config.db_url("engine")
    purge = _PurgeThread(loaded, duty, engine_url, tag, a.triggers)
    purge.start()
    try:
        engine_run(bench.procs, triggers=a.triggers, tag=tag)
    finally:
        purge.join()
    if purge.failed is not None:
        raise purge.failed
    purge_checked(loaded)
    finished = _finished(engine_url, tag)
    last = finished[-1] if finished else None
    shift = _alone_shift(finished, alone, steps=purge.steps, started=purge.started_at)
    return Beside(
        way=case,
        step_logs=loaded.step_logs,
        load_seconds=loaded.seconds,
        purge_seconds=purge.seconds,
        engine_per_second=_rate(finished, purge.started_at, purge.ended_at),
        alone_per_second=_rate(alone, purge.started_at + shift, purge.ended_at + shift),
        outlasted=last is None or last < purge.ended_at,
        dropped=dropped_summary(purge.output),
        phases=phases_summary(purge.phases(), finished, alone, shift),
    )


class _PurgeThread(threading.Thread):
    """purge_logs on `loaded`, at `duty`, once the engine's run `tag` has logged STEADY_FROM of
    its steps; when it started and ended, its seconds and output, or what failed."""

    def __init__(self, loaded: Any, duty: float, engine_url: str, tag: str, triggers: int):
        super().__init__(name=f"purge-{tag}")
        self.loaded, self.duty, self.engine_url, self.tag = loaded, duty, engine_url, tag
        self.steps = int(triggers * ENGINE_STEPS_PER_TRIGGER * STEADY_FROM)
        self.started_at = self.ended_at = datetime.now(UTC)
        self.seconds = 0.0
        self.output = ""
        self.batches: list[datetime] = []  # when each of its batch lines came
        self.failed: BaseException | None = None

    def run(self) -> None:
        try:
            _wait_logged(self.engine_url, self.tag, self.steps)
            argv, env = purge_command(self.loaded)
            argv += ["--duty-cycle", str(self.duty)]
            # Its lines as it writes them, each timed: where its phases begin and end.
            env = {**env, "PYTHONUNBUFFERED": "1"}
            self.started_at = datetime.now(UTC)
            started = time.monotonic()
            lines = []
            with subprocess.Popen(
                argv, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            ) as process:
                assert process.stdout is not None
                for line in process.stdout:
                    lines.append(line)
                    if line.startswith("batch "):
                        self.batches.append(datetime.now(UTC))
            self.seconds = time.monotonic() - started
            self.ended_at = datetime.now(UTC)
            self.output = "".join(lines)
            if process.returncode:
                raise subprocess.CalledProcessError(process.returncode, argv, self.output)
        except BaseException as exc:  # raised again in the bench's thread
            self.failed = exc

    def phases(self) -> list[tuple[str, datetime, datetime]]:
        """(phase, start, end): its start to its first batch line (the process's start, the
        count and the first batch), the batches to the last one's line, then the rest, `end`
        (the pause after the last batch, the partitions' drops and the report)."""
        if not self.batches:
            return [("all", self.started_at, self.ended_at)]
        return [
            ("start", self.started_at, self.batches[0]),
            ("batches", self.batches[0], self.batches[-1]),
            ("end", self.batches[-1], self.ended_at),
        ]


def phases_summary(
    phases: list[tuple[str, datetime, datetime]],
    finished: list[datetime],
    alone: list[datetime],
    shift: timedelta,
) -> str:
    """`start 2.1 s at 350.2 steps/s (alone 360.0), …`: each phase's length, the engine's steps
    logged in it per second, and the engine alone's over the same stretch of its run (`shift`
    from this run's clock: _alone_shift)."""
    said = []
    for name, start, end in phases:
        rate, by_itself = _rate(finished, start, end), _rate(alone, start + shift, end + shift)
        said.append(
            f"{name} {(end - start).total_seconds():.1f} s at {rate:.1f} steps/s"
            f" (alone {by_itself:.1f})"
        )
    return ", ".join(said)


def dropped_summary(output: str) -> str:
    """purge_logs' lines `<rows> partitions dropped (their rows): <name> <rows>, …` (workers/
    management/retention.py), one a table, in a few words: how many partitions went, and the
    rows they held."""
    said = []
    for history in PARTITIONED:
        prefix = history.dropped_line
        for line in output.splitlines():
            if line.startswith(prefix):
                rows = [int(item.rsplit(" ", 1)[1]) for item in line[len(prefix) :].split(", ")]
                said.append(f"{len(rows)} {history.rows} partitions ({sum(rows):,} rows)")
    return f"dropped {' and '.join(said)}" if said else "no partition dropped"


# The engine's steps, by its workflow's key (bench.fixtures.workflow_new: bench-<tag>-<hex>).
STEPS_FROM = """
FROM step_log s JOIN workflows_workflow w ON w.id = s.workflow_id WHERE w.key LIKE %(key)s
"""
STEPS_SQL = "SELECT s.finished_at" + STEPS_FROM + "ORDER BY s.finished_at"
STEPS_COUNT_SQL = "SELECT count(*)" + STEPS_FROM


def _key(tag: str) -> str:
    return f"bench-{tag}-%"


def _wait_logged(url: str, tag: str, steps: int) -> None:
    deadline = time.monotonic() + START_DEADLINE_SECONDS
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            (logged,) = conn.execute(STEPS_COUNT_SQL, {"key": _key(tag)}).fetchone() or (0,)
            if logged >= steps:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the engine logged {logged}/{steps} steps in time")
            time.sleep(0.2)


def _finished(url: str, tag: str) -> list[datetime]:
    with psycopg.connect(url, autocommit=True) as conn:
        return [when for (when,) in conn.execute(STEPS_SQL, {"key": _key(tag)}).fetchall()]


def _logged_between(finished: list[datetime], start: datetime, end: datetime) -> int:
    return sum(start <= when < end for when in finished)


def _alone_shift(
    finished: list[datetime], alone: list[datetime], *, steps: int, started: datetime
) -> timedelta:
    """What to add to a moment of the run beside the purge (its steps `finished`) for the same
    moment of the alone run's: the moments each had logged the `steps` that the purge waited for
    (the purge's lag behind that, its polling, carried over)."""
    waited = finished[steps - 1] if 0 < steps <= len(finished) else started
    return (alone[min(steps, len(alone)) - 1] - waited) if alone and steps > 0 else timedelta(0)


def _rate(finished: list[datetime], start: datetime, end: datetime) -> float:
    """Steps logged from `start` to `end`, per second."""
    seconds = (end - start).total_seconds()
    return _logged_between(finished, start, end) / seconds if seconds > 0 else 0.0


def _steady_rate(finished: list[datetime]) -> float:
    first, last = int(len(finished) * STEADY_FROM), int(len(finished) * (1 - STEADY_FROM))
    seconds = (finished[last] - finished[first]).total_seconds() if finished else 0.0
    return (last - first) / seconds if seconds > 0 else 0.0


def purge_rows(bench: Any, rounds: list[PurgeRound]) -> list[Any]:
    from bench.report import Row, ratio, spread

    if not rounds:
        return []
    a = bench.args
    cmd = bench.cmd("purge", purge_runs=a.purge_runs, triggers=a.triggers)
    names = list(rounds[0].beside)
    seconds = {case: [r.beside[case].purge_seconds for r in rounds] for case in names}
    engine = {case: [r.beside[case].engine_per_second for r in rounds] for case in names}
    # Each case against the engine alone over the same stretch of its run (_alone_shift).
    matched = {case: [r.beside[case].alone_per_second for r in rounds] for case in names}
    paced = next((case for case in names if case not in WAYS), None)
    alone = [r.alone for r in rounds]
    step_logs = rounds[0].beside["drop"].step_logs
    _, faster = ratio(seconds["rows"], seconds["drop"])
    _, drop_text = ratio(engine["drop"], matched["drop"])
    _, rows_text = ratio(engine["rows"], matched["rows"])
    outlasted = sorted({case for r in rounds for case, b in r.beside.items() if b.outlasted})
    late = f"; **the purge outlasted the engine** ({', '.join(outlasted)})" if outlasted else ""
    rows = [
        Row(
            "6. purge_logs of a day's history beside the engine (s)",
            f"drop {spread(seconds['drop'], ' s')}, rows {spread(seconds['rows'], ' s')};"
            f" {a.purge_runs:,} finished runs, {step_logs:,} step logs, their events and sends"
            f" (drop: {rounds[0].beside['drop'].dropped}) (bench/purgerun.py)",
            ratio=f"rows/drop {faster}",
            command=cmd,
        ),
        Row(
            "6. engine steps/s while purge_logs runs at full speed",
            f"drop way {spread(engine['drop'])} (alone over the same stretch"
            f" {spread(matched['drop'])}), rows way {spread(engine['rows'])} (alone"
            f" {spread(matched['rows'])}); alone (steady) {spread(alone)}{late}",
            ratio=f"drop/alone {drop_text}; rows/alone {rows_text}",
            command=cmd,
        ),
    ]
    if paced is not None:
        value, text = ratio(engine[paced], matched[paced])
        runs = rounds[0].beside[paced].step_logs // 3
        rows.append(
            Row(
                f"6. engine steps/s while purge_logs runs, --duty-cycle {a.purge_duty_cycle:g}",
                f"{spread(engine[paced])}; alone over the same stretch {spread(matched[paced])},"
                f" alone (steady) {spread(alone)}; the purge of {runs:,}"
                f" runs took {spread(seconds[paced], ' s')}{late}",
                ratio=f"{paced}/alone {text}",
                target=">= 0.95",
                met=None if value is None or paced in outlasted else value >= 0.95,
                command=bench.cmd(
                    "purge",
                    purge_runs=a.purge_runs,
                    purge_duty_cycle=a.purge_duty_cycle,
                    triggers=a.triggers,
                ),
            )
        )
    return rows
