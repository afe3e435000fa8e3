"""Figure: a schedule's occurrence for a 100,000-recipient topic against the same topic fanned
out, in the same run (issue 50 §1: a schedule fires in chunks through the fan-out's insert, at
least at its rate).

Each side runs in a child process of bench/fanout.py (`python -m bench.fanout schedule ...`), as a
worker runs its tasks, on the `sql` copy where no worker runs, alternated `--repeat` times:

- schedule: a schedule of the topic (`FREQ=MINUTELY;COUNT=1`, UTC) whose one occurrence is due,
  then `schedule_fire` until it has no more: exactly the task's body (`workers.schedule_fire`),
  one chunk of NOTIFLOW_FANOUT_CHUNK_SIZE runs per call, each its own transaction under the
  schedule's lease;
- fan-out: bench/fanout.py's own side.

The rate is runs created per second; the CPU per run as bench/fanout.py measures it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from bench import infra
from bench.fanout import FanoutRun, audience_load, child_run
from bench.intake import PAYLOAD
from bench.report import Row, ratio, spread


def schedules_run(bench: Any, say: Callable[[str], None]) -> list[FanoutRun]:
    """Both sides on one topic of `--fanout-subscribers` recipients."""
    n = bench.args.fanout_subscribers
    env = infra.base_env(bench.config, "sql")
    topic = f"bench-schedule-{n}-{os.getpid()}"
    say(f"schedules: loading a topic of {n:,} subscribers")
    audience_load(bench.config.db_url("sql"), topic_key=topic, size=n)
    runs = []
    for side in ("fanout", "schedule") * bench.args.repeat:
        say(f"schedules: {side}, {n:,} runs")
        runs.append(child_run(env, side, bench.sql_workflow.key, topic, n))
        say(f"  {runs[-1]}")
    infra.redis_flush(bench.config)  # the runs' nudges: no worker ran them
    return runs


def schedule_side(workflow_key: str, topic_key: str) -> int:
    """The child's side: one due occurrence of a schedule of the topic, fired to the end."""
    from schedules.firing import schedule_fire
    from schedules.models import Schedule
    from schedules.rules import local_text
    from schedules.services import ScheduleRequest, db_now, schedule_put

    schedule_id = f"bench-{uuid.uuid4().hex[:8]}"
    at = db_now() - timedelta(seconds=30)
    local = local_text(at.replace(tzinfo=None, microsecond=0))
    request = ScheduleRequest(
        id=schedule_id,
        workflow=workflow_key,
        topic=topic_key,
        repeat="FREQ=MINUTELY;COUNT=1",
        timezone="UTC",
        starts_at=local,
        payload=PAYLOAD,
    )
    schedule_put(request, actor="bench")
    # Stored a minute ago: its one occurrence, 30 s ago, is due (well within catch_up).
    Schedule.objects.filter(pk=schedule_id).update(
        fires_from=at - timedelta(seconds=30), next_local=local, zones=None, available_at=at
    )
    while Schedule.objects.filter(pk=schedule_id).exclude(next_local="").exists():
        schedule_fire(schedule_id=schedule_id, worker_id="bench")
    return Schedule.objects.get(pk=schedule_id).runs_created


def schedule_rows(bench: Any, r: dict[str, Any], a: Any) -> list[Row]:
    """The schedule's runs created per second against the fan-out's, same run, same topic."""
    runs = r.get("schedules", [])
    if not runs:
        return []
    n = a.fanout_subscribers
    rate = {
        side: [run.per_second for run in runs if run.side == side]
        for side in ("schedule", "fanout")
    }
    cpu = {
        side: [run.cpu_ms_per_run for run in runs if run.side == side and run.cpu_seconds]
        for side in ("schedule", "fanout")
    }
    value, text = ratio(rate["schedule"], rate["fanout"])
    return [
        Row(
            f"4b. a schedule's occurrence for a {n:,}-recipient topic (runs created/s; the task's "
            "body, NOTIFLOW_FANOUT_CHUNK_SIZE a chunk)",
            spread(rate["schedule"], "/s")
            + f"; the topic fanned out {spread(rate['fanout'], '/s')}"
            f"; CPU ms per run schedule {spread(cpu['schedule'], digits=3)} vs fan-out "
            f"{spread(cpu['fanout'], digits=3)}",
            ratio=f"schedule/fanout {text}" if text else "",
            target=">= the fan-out's rate",
            met=value >= 0.95 if value is not None else None,
            command=bench.cmd("schedules", fanout_subscribers=n),
        )
    ]
