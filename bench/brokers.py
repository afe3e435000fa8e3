"""Both brokers in one run (issue 20): the engine and intake figures again with RabbitMQ as the
broker, measured by a second `python -m bench --broker rabbitmq` right after this one's own
(Redis) rounds, on databases and a vhost of its own, and compared with them.

A second process rather than a switch inside this one: the broker is a setting every process
reads at start-up (Django's and Celery's), as it is in production.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.infra import ROOT


@dataclass(frozen=True)
class BrokersRun:
    engine: list[float]  # steps/s, one per round
    intake: list[float]  # req/s
    intake_p99_ms: list[float]
    log: str  # the second run's output


def summary(r: dict[str, Any]) -> dict[str, list[float]]:
    """The figures another run compares with (--summary-json)."""
    return {
        "engine": [e.steps_per_second for e in r.get("engine", [])],
        "intake": [h.per_second for h in r.get("intake_http", [])],
        "intake_p99_ms": [h.p99_ms for h in r.get("intake_http", [])],
    }


def brokers_run(bench: Any, say: Callable[[str], None]) -> BrokersRun:
    a, config = bench.args, bench.config
    out = config.workdir / "brokers-rabbitmq.json"
    log = config.workdir / "brokers-rabbitmq.log"
    out.unlink(missing_ok=True)
    argv = [
        *(sys.executable, "-m", "bench", "--broker", "rabbitmq"),
        *("--rabbitmq-url", a.rabbitmq_url, "--only", "engine,intake"),
        *("--triggers", str(a.triggers), "--intake-requests", str(a.intake_requests)),
        *("--repeat", str(a.repeat), "--no-write", "--summary-json", str(out)),
        *("--db-prefix", f"{a.db_prefix}_rabbitmq", "--redis-url", a.redis_url),
        *("--port", str(config.port), "--web", a.web),
    ]
    say(f"brokers: the engine and intake again with RabbitMQ as the broker (log: {log})")
    with log.open("w") as output:
        done = subprocess.run(argv, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise RuntimeError(f"the RabbitMQ run failed (exit {done.returncode}); see {log}")
    figures = json.loads(out.read_text())
    return BrokersRun(
        engine=figures["engine"],
        intake=figures["intake"],
        intake_p99_ms=figures["intake_p99_ms"],
        log=str(log),
    )
