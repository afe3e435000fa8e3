"""What a fetch node costs over a plain step (issue 50, "Done when": "the fetch node's overhead
over a plain step"): the engine on K triggers of three fetch steps, each a GET of a loopback
stand-in answering a small JSON body (docs/guide/fetch.md; NOTIFLOW_FETCH_ALLOW_PRIVATE, as the
stand-in is on loopback), against K triggers of three SMS steps through the bench's no-I/O
provider, in the same round, the two sides alternated from one round to the next (as
bench/content_cost.py does). The overhead is the worker pool's CPU per step and the wall time per
step, fetch less plain; the stand-in answers at once, so what is measured is Notiflow's side of
a fetch (the address rule, the client, the parse, the larger `vars`), not a network's.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench.engine import EngineRun, engine_run
from bench.fixtures import chain, sms_node
from bench.metrics_cost import engine_cpu_ms_per_step
from bench.report import Row, ratio, spread

ANSWER = json.dumps({"status": "shipped", "tracking": "1Z999", "unread": 3}).encode()
STEPS = ("one", "two", "three")


class _StandIn(BaseHTTPRequestHandler):
    """The order API a fetch asks: 200 with ANSWER to every GET."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def stand_in() -> Iterator[str]:
    """The stand-in on a free loopback port, for the block: its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _StandIn)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="bench-fetch", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def fetch_definition(base_url: str) -> dict[str, Any]:
    return chain(
        *(
            {
                "id": step,
                "type": "fetch",
                "url": base_url + "/orders/{{ payload.plan }}",
                "timeout": "5s",
            }
            for step in STEPS
        )
    )


PLAIN_DEFINITION = chain(*(sms_node(step) for step in STEPS))


@dataclass(frozen=True)
class FetchCostRound:
    plain: EngineRun
    fetch: EngineRun


def fetch_cost_run(bench: Any, say: Callable[[str], None], *, round_: int) -> FetchCostRound:
    """One round: the engine (K triggers x 3 steps) with SMS steps and with fetch steps."""
    a, procs = bench.args, bench.procs
    runs: dict[str, EngineRun] = {}
    with stand_in() as base_url:
        # The stand-in is on loopback, which the address rule refuses unless told.
        private = {"NOTIFLOW_FETCH_ALLOW_PRIVATE": "true"}
        sides: list[tuple[str, dict[str, Any], dict[str, str]]] = [
            ("plain", PLAIN_DEFINITION, {}),
            ("fetch", fetch_definition(base_url), private),
        ]
        if round_ % 2:
            sides.reverse()
        for side, definition, env in sides:
            say(f"fetch {side}: engine, {a.triggers} triggers x 3 steps (round {round_ + 1})")
            runs[side] = engine_run(
                procs,
                triggers=a.triggers,
                tag=f"fetch{side}{round_}",
                definition=definition,
                env=env,
            )
            say(f"  {runs[side]}")
    return FetchCostRound(plain=runs["plain"], fetch=runs["fetch"])


def _wall_ms_per_step(run: EngineRun) -> float:
    return 1000 / run.steps_per_second if run.steps_per_second else 0.0


def fetch_rows(bench: Any, rounds: list[FetchCostRound]) -> list[Row]:
    """The fetch step's pool CPU and wall time per step over a plain (SMS, no I/O) step's."""
    if not rounds:
        return []
    fetch_cpu = [engine_cpu_ms_per_step(r.fetch) for r in rounds]
    plain_cpu = [engine_cpu_ms_per_step(r.plain) for r in rounds]
    cpu_over = [f - p for f, p in zip(fetch_cpu, plain_cpu, strict=True)]
    wall_over = [_wall_ms_per_step(r.fetch) - _wall_ms_per_step(r.plain) for r in rounds]
    _, text = ratio(fetch_cpu, plain_cpu)
    return [
        Row(
            "fetch node over a plain step (GET of a loopback stand-in vs SMS, no I/O; pool CPU "
            "ms/step)",
            f"fetch {spread(fetch_cpu, digits=2)}, plain {spread(plain_cpu, digits=2)}: "
            f"+{spread(cpu_over, digits=2)} CPU ms, +{spread(wall_over, digits=2)} wall ms a "
            f"step; steps/s fetch {spread([r.fetch.steps_per_second for r in rounds])}, plain "
            f"{spread([r.plain.steps_per_second for r in rounds])}",
            ratio=f"fetch/plain {text}" if text else "",
            command=bench.cmd("fetch", triggers=bench.args.triggers, repeat=3),
        )
    ]
