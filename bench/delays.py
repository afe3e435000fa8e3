"""Figure 5: how late a step after a delay starts, below and above the countdown cap.

Workflow: delay -> sms. Lateness = the sms step's `started_at` minus the moment it was due,
which is the delay step's `finished_at` plus its delay (the engine sets `available_at` from the
very same instant). Below the cap the wait rides on a Celery countdown; above it the trigger is
left to the sweeper (beat), which looks one sweep interval ahead and nudges with a countdown.
Triggers are created at a steady pace (25/s, two steps each: well under the engine's capacity on 2
cores) so that this measures timing, not a backlog; their deadlines are spread as in real traffic.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.db import connection

from bench.fixtures import PAYLOAD, chain, delay_node, sms_node, wait_finished, workflow_new
from bench.infra import Processes, redis_flush
from triggers.services import trigger_create

BELOW_CAP_DELAYS_MS = (1000, 2000, 3000, 4000, 5000)  # default cap: 300 s
# The sweeper path with a small cap, so that it runs in seconds. The sweep interval stays at its
# default (5 s); the delays are longer than cap + interval, as a delay above the default cap
# (300 s) is: every due time is seen by a sweep ahead of it, as in production.
ABOVE_CAP_SECONDS = 2  # NOTIFLOW_MAX_COUNTDOWN_SECONDS for the sweeper path
ABOVE_CAP_DELAYS_MS = (8000, 9000, 10000, 11000, 12000)


@dataclass(frozen=True)
class DelayRun:
    path: str
    count: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    env: dict[str, str]


def _lateness_ms(workflow_ids: list[int]) -> list[float]:
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT extract(epoch FROM after.started_at - (wait.finished_at
                   + (wait.output->>'delay_ms')::int * interval '1 millisecond')) * 1000
            FROM step_log wait
            JOIN step_log after ON after.trigger_id = wait.trigger_id AND after.node_id = 'after'
            WHERE wait.node_id = 'wait' AND wait.workflow_id = ANY(%s)
            ORDER BY 1
            """,
            [workflow_ids],
        )
        return [float(row[0]) for row in cursor.fetchall()]


def _percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0


def delays_run(
    procs: Processes, *, count: int, above_cap: bool, per_second: float = 25
) -> DelayRun:
    env = {"NOTIFLOW_MAX_COUNTDOWN_SECONDS": str(ABOVE_CAP_SECONDS)} if above_cap else {}
    delays = ABOVE_CAP_DELAYS_MS if above_cap else BELOW_CAP_DELAYS_MS
    path = "above cap (sweeper)" if above_cap else "below cap (countdown)"
    redis_flush(procs.config)
    workflows = [
        workflow_new(f"delay-{ms}", chain(delay_node("wait", ms), sms_node("after")))
        for ms in delays
    ]
    worker = procs.worker("worker", "notiflow", (), **env)
    beat = procs.beat(**env)
    shares = [count // len(workflows) + (i < count % len(workflows)) for i in range(len(workflows))]
    try:
        started = time.monotonic()
        for i in range(count):  # round robin over the delays, at a steady pace
            wait = started + i / per_second - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            workflow = workflows[i % len(workflows)]
            trigger_create(workflow_key=workflow.key, idempotency_key=f"delay-{i}", payload=PAYLOAD)
        for workflow, share in zip(workflows, shares, strict=True):
            wait_finished(workflow.pk, share, timeout=120 + max(delays) / 1000)
    finally:
        procs.stop(beat)
        procs.stop(worker)
    lateness = _lateness_ms([w.pk for w in workflows])
    return DelayRun(
        path=path,
        count=len(lateness),
        p50_ms=_percentile(lateness, 0.5),
        p99_ms=_percentile(lateness, 0.99),
        max_ms=lateness[-1] if lateness else 0.0,
        env=env,
    )
