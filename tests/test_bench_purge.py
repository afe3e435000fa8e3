"""The bench's purge part (bench/purgerun.py): its rows, and the engine alone taken over the same
stretch of its run as the purge beside it."""

from datetime import timedelta
from types import SimpleNamespace


def test_the_purge_rows_compare_the_two_ways_and_the_engine_beside_each_with_it_alone():
    from bench.purgerun import Beside, PurgeRound, dropped_summary, purge_rows

    def beside(
        way: str, seconds: float, engine: float, alone: float, outlasted: bool = False
    ) -> Beside:
        dropped = dropped_summary(
            "step log partitions dropped (their rows): step_log_p20261019 0, step_log_p20261020 600"
            "\nrun event partitions dropped (their rows): trigger_event_p20261019 1800\n"
            "Deleted (finished before 2026-10-29T00:00:00+00:00): ..."
        )
        return Beside(way, 600, 1.0, seconds, engine, alone, outlasted, dropped)

    def one(alone: float, rows: Beside, drop: Beside, paced: Beside) -> PurgeRound:
        return PurgeRound(alone=alone, beside={"rows": rows, "drop": drop, "drop paced 0.1": paced})

    # Each case beside the engine, and the engine alone over the same stretch of its run, which
    # is what it is judged against (not the alone run's whole steady state, the first figure).
    rounds = [
        one(
            100,
            beside("rows", 30, 60, 80),
            beside("drop", 20, 90, 100),
            beside("drop paced 0.1", 25, 77, 80),
        ),
        one(
            50,
            beside("rows", 36, 30, 40),
            beside("drop", 24, 48, 50),
            beside("drop paced 0.1", 26, 47, 50),
        ),
    ]
    args = SimpleNamespace(purge_runs=200, triggers=100, purge_duty_cycle=0.1)
    bench = SimpleNamespace(cmd=lambda only, **sizes: f"make bench {only} {sizes}", args=args)

    purge, full, paced = purge_rows(bench, rounds)

    assert purge.ratio == "rows/drop 1.50 (1.50-1.50)"
    assert (
        "(drop: dropped 2 step log partitions (600 rows) and 1 run event partitions (1,800 rows))"
        in purge.result
    )
    # Per round: 90/100 and 48/50; the rows way 60/80 and 30/40. No target at full speed.
    assert full.ratio == "drop/alone 0.93 (0.90-0.96); rows/alone 0.75 (0.75-0.75)"
    assert full.met is None
    # Paced: 77/80 and 47/50 (77/100 against the steady state), judged against 0.95.
    assert paced.ratio == "drop paced 0.1/alone 0.95 (0.94-0.96)" and paced.target == ">= 0.95"
    assert "alone over the same stretch 65.0 (50.0-80.0, n=2)" in paced.result
    assert paced.met is True and "'purge_duty_cycle': 0.1" in paced.command
    # A purge that outlasted the engine's backlog measured its tail: not judged, and said.
    rounds[1].beside["drop paced 0.1"] = beside("drop paced 0.1", 26, 49, 50, outlasted=True)
    *_, paced = purge_rows(bench, rounds)
    assert paced.met is None and "the purge outlasted the engine" in paced.result
    assert purge_rows(bench, []) == []


def test_the_engine_alone_is_taken_over_the_stretch_of_its_run_the_purge_ran_beside():
    from datetime import UTC, datetime

    from bench.purgerun import _alone_shift, _rate, phases_summary

    at = datetime(2026, 11, 30, tzinfo=UTC)
    # Alone: 10 steps a second for 5 s (the intake still firing), then 20 a second for 5 s.
    alone = [at + timedelta(seconds=i / 10) for i in range(50)]
    alone += [at + timedelta(seconds=5 + i / 20) for i in range(100)]
    # Beside the purge, the same run an hour later, half as fast from 2.5 s on: its 15th step at
    # 1.4 s, as alone; the purge waited for those 15 and started 0.1 s later, as its polling does.
    later = at + timedelta(hours=1)
    finished = [later + timedelta(seconds=i / 10) for i in range(25)]
    finished += [later + timedelta(seconds=2.5 + i / 5) for i in range(50)]
    started = later + timedelta(seconds=1.5)
    shift = _alone_shift(finished, alone, steps=15, started=started)
    assert shift == timedelta(hours=-1)
    # The same stretch of the alone run: 1.5-4.5 s, 10 a second (not its later 20 a second).
    assert _rate(alone, started + shift, started + shift + timedelta(seconds=3)) == 10.0
    phases = [
        ("start", started, started + timedelta(seconds=1)),
        ("batches", later + timedelta(seconds=5), later + timedelta(seconds=7)),
    ]
    assert phases_summary(phases, finished, alone, shift) == (
        "start 1.0 s at 10.0 steps/s (alone 10.0), batches 2.0 s at 5.0 steps/s (alone 20.0)"
    )
    # No alone run: nothing to shift.
    assert _alone_shift(finished, [], steps=15, started=started) == timedelta(0)
