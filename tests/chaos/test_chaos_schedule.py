"""A schedule under the chaos run's faults, small (`make chaos` runs it at 10,000 subscribers;
docs/reliability/chaos.md, "A schedule under the faults"): a topic of 300 scheduled once, its
occurrence due among a pool-process kill, a Redis FLUSHALL, a PostgreSQL restart and a whole
worker's kill; every subscriber gets exactly one run keyed `schedule:<id>:<recipient>:<UTC>`,
and the occurrence is recorded fired with 300 runs. On a PostgreSQL cluster and redis-server of
its own."""

from __future__ import annotations

import pytest

from chaos.harness import ChaosConfig, ChaosRun

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400), pytest.mark.usefixtures("chaos_servers")]


def test_a_schedules_occurrence_fires_each_subscriber_once_under_the_faults(tmp_path):
    config = ChaosConfig(
        triggers=60,
        kills=2,
        flushes=1,
        redis_restarts=0,
        pg_restarts=1,
        receiver_outages=0,
        webhook_events=(),
        workers=2,
        # Faults 2 s apart from the start: the occurrence is due 5 s after its PUT, so the
        # PostgreSQL restart and the worker's kill land on its chunks of 50 and its runs
        # (every trigger waits 2 s at its delay node: work in flight throughout).
        fault_interval=2,
        delay_ms=2000,
        schedule_subscribers=300,
        deadline=240,
        logs=tmp_path,
        seed=3,
    )
    with ChaosRun(config) as run:
        result = run.run()
    print(result.table())

    assert result.misses() == []
    schedules = result.schedules
    assert (schedules.occurrence, schedules.runs_created, schedules.runs) == ("fired 300", 300, 300)
    assert (schedules.missing, schedules.twice, schedules.strangers) == (0, 0, 0)
    assert schedules.wrong_keys == 0
    assert result.postgres_restarts == 1 and result.redis_flushes == 1
