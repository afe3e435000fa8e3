"""The bench's fetch part without running the engine (bench/fetch_cost.py): the stand-in answers
the fetch node's GET with JSON, the workflow of fetch steps passes the validator, and the row
says the overhead per step, fetch less plain."""

from __future__ import annotations

import json
import urllib.request
from types import SimpleNamespace

from bench.engine import EngineRun
from bench.fetch_cost import (
    PLAIN_DEFINITION,
    FetchCostRound,
    fetch_definition,
    fetch_rows,
    stand_in,
)
from bench.metrics_cost import POOL
from workflows.validation import workflow_validate


def test_the_stand_in_answers_json_and_both_workflows_are_valid():
    with stand_in() as base_url:
        with urllib.request.urlopen(base_url + "/orders/pro", timeout=5) as answer:  # noqa: S310
            assert answer.headers["Content-Type"] == "application/json"
            assert json.loads(answer.read())["status"] == "shipped"
        definition = fetch_definition(base_url)
    assert [node["type"] for node in definition["nodes"]] == ["fetch"] * 3
    assert workflow_validate(definition) == []
    assert workflow_validate(PLAIN_DEFINITION) == []


def run(steps_per_second: float, pool_cpu_seconds: float) -> EngineRun:
    steps = 300
    return EngineRun(
        triggers=100,
        steps=steps,
        seconds=steps / steps_per_second,
        enqueue_seconds=0.1,
        tasks=steps,
        idle_tasks=0,
        db={},
        cpu={POOL: pool_cpu_seconds},
    )


def test_the_row_says_the_fetch_steps_overhead_over_a_plain_one():
    bench = SimpleNamespace(
        args=SimpleNamespace(triggers=100),
        cmd=lambda only, **sizes: f"make bench ARGS=--only {only}",
    )
    rounds = [FetchCostRound(plain=run(200, 1.2), fetch=run(100, 2.4))]

    (row,) = fetch_rows(bench, rounds)

    # 4 ms of pool CPU a step against 8; 5 ms of wall a step against 10.
    assert "fetch 8.00, plain 4.00: +4.00 CPU ms, +5.00 wall ms a step" in row.result
    assert row.ratio == "fetch/plain 2.00"
    assert fetch_rows(bench, []) == []
