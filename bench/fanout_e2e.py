"""The `fanout_e2e` part (issue 51 §3): a topic fanned out through the workers, end to end,
against the same runs triggered in bulk, in one run; and urgent single triggers meanwhile.

On the `engine` database, with the standard worker, the urgent one, beat and the web process
(gunicorn), all as deployed (the Procfile); each side a fresh one-email workflow (priority 5) of
the same N recipients:

- bulk: N runs by POST /api/triggers/bulk/ (NOTIFLOW_BULK_MAX a request, BULK_CLIENTS clients),
  from the first request sent to the last run completed;
- fan-out: one POST /api/triggers/ for the topic, from its 202 to the last run completed (its
  chunk tasks, run by the same workers, make the runs while the earlier ones execute);

alternated `--repeat` times. The rate is runs completed per second; the ratio fan-out/bulk
(target 0.95). During both sides urgent workflows (priority 9 in the request) are triggered
URGENT_PER_SECOND times a second each by a single POST, so that both sides carry the same extra
load: one keyed `urgent.<name>`, run by the Procfile's `urgent` worker (the `own` lane), and, in
the same run for the A/B, one on the standard worker's queue (the `shared` lane; the only one with
`--fanout-urgent shared`, which starts no urgent worker). Each one's
latency, from the 202 to the run completed (the database's `completed_at`; one host, one
clock), is compared with IDLE_URGENT of the same triggers on the idle engine at the start of
the same round (the machine's load drifts between rounds). The gaps between the
fan-out's chunks (one `created_at` per chunk: its runs are one statement) show whether chunks
waited behind the runs' backlog (docs/design/recipients.md, "Chunks before runs").

Imported only after django.setup() (see bench.__main__).
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import statistics
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection

from bench import infra
from bench.fanout import audience_load
from bench.fixtures import chain, email_node, use_database, wait_finished, workflow_new
from bench.intake import PAYLOAD
from bench.report import Row, ratio, spread

ONE_EMAIL = chain(email_node("mail"))
URGENT_PER_SECOND = 5
# The idle baseline's triggers: 60 s at URGENT_PER_SECOND. Its p99 is their third slowest; at 100 it
# was the second, and read 6, 29 and 179 ms in three quiet rounds (docs/performance/elsewhere.md).
IDLE_URGENT = 300
BULK_CLIENTS = 4
# --fanout-urgent own (the default), own-nice: the urgent workflow keyed `urgent.<name>`, run by the
# Procfile's `urgent` worker, started as deployed.
URGENT_ARGS = infra.procfile_worker_args("urgent")
URGENT_PROCESSES = URGENT_ARGS[URGENT_ARGS.index("-c") + 1]
NICE = 10  # own-nice: the standard worker's OS priority (nice(1); higher yields)
_OWN = f", on the Procfile's `urgent` worker ({URGENT_PROCESSES} processes)"
URGENT_WHERE = {
    "own": _OWN,
    "shared": ", on the standard worker's queue",
    "own-nice": f"{_OWN}, the rest at nice {NICE}",
}


# Where an urgent trigger's workflow runs: on the Procfile's `urgent` worker, or on the standard
# worker's queue beside the audience (at priority 9).
LANES = ("own", "shared")


@dataclass(frozen=True)
class Latencies:
    """Urgent triggers: 202 -> completed, in ms."""

    phase: str
    millis: list[float]
    lane: str  # "own" (the urgent worker) or "shared" (the standard queue): one of LANES

    def quantile(self, q: float) -> float:
        ordered = sorted(self.millis)
        return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0

    def __str__(self) -> str:
        return (
            f"urgent ({self.lane}) {self.phase}: {len(self.millis)} triggers, p50 "
            f"{self.quantile(0.5):.0f} ms, p99 {self.quantile(0.99):.0f} ms"
        )


@dataclass(frozen=True)
class Side:
    side: str  # "bulk" or "fanout"
    runs: int
    seconds: float  # first request sent (bulk) or the 202 (fan-out) -> last run completed
    urgent: list[Latencies]  # one per lane
    chunk_gaps: list[float] = field(default_factory=list)  # fan-out: seconds between chunks

    @property
    def per_second(self) -> float:
        return self.runs / self.seconds if self.seconds > 0 else 0.0

    def __str__(self) -> str:
        gaps = ""
        if self.chunk_gaps:
            gaps = (
                f"; {len(self.chunk_gaps) + 1} chunks, gap median "
                f"{statistics.median(self.chunk_gaps):.2f} s, max {max(self.chunk_gaps):.2f} s"
            )
        return (
            f"{self.side}: {self.runs:,} runs completed in {self.seconds:.1f}s = "
            f"{self.per_second:,.0f}/s{gaps}; {'; '.join(map(str, self.urgent))}"
        )


@dataclass
class FanoutE2e:
    audience: int
    urgent_layout: str  # --fanout-urgent
    idle: list[list[Latencies]]  # per round, one per lane
    sides: list[Side]
    seconds: float  # the part's whole run time, loading included

    @property
    def lanes(self) -> list[str]:
        return [latencies.lane for latencies in self.idle[0]] if self.idle else []


class Api:
    """One keep-alive connection to the web process, as a client would hold it."""

    def __init__(self, port: int, api_key: str):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        self.conn.request("POST", path, json.dumps(body), self.headers)
        answer = self.conn.getresponse()
        return answer.status, json.loads(answer.read() or b"null")

    def close(self) -> None:
        self.conn.close()


class UrgentSender:
    """Urgent triggers at a steady rate from a thread of its own, until the block ends (or,
    with a `limit`, until that many were sent): (id, the 202's epoch time) each."""

    def __init__(
        self, port: int, api_key: str, workflow_key: str, lane: str, *, limit: int | None = None
    ):
        self.api = Api(port, api_key)
        self.workflow_key, self.lane, self.limit = workflow_key, lane, limit
        self.sent: list[tuple[str, float]] = []
        self.error: BaseException | None = None
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> UrgentSender:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.limit is not None:
            self.thread.join(timeout=self.limit / URGENT_PER_SECOND + 120)
        self.stopped.set()
        self.thread.join(timeout=120)
        self.api.close()
        if self.error is not None:
            raise RuntimeError("the urgent triggers' sender failed") from self.error

    def _run(self) -> None:
        try:
            self._send()
        except BaseException as exc:  # shown by __exit__, in the bench's thread
            self.error = exc

    def _send(self) -> None:
        started = time.monotonic()
        while not self.stopped.is_set() and (self.limit is None or len(self.sent) < self.limit):
            body = {
                "workflow": self.workflow_key,
                "idempotency_key": f"urgent-{uuid.uuid4().hex}",
                "payload": PAYLOAD,
                "priority": 9,
            }
            status, answer = self.api.post("/api/triggers/", body)
            if status not in (200, 201):
                raise RuntimeError(f"an urgent trigger was refused: {status} {answer}")
            self.sent.append((answer["id"], time.time()))
            # Paced on the clock, not the answers: a slow answer is not made up by a burst.
            self.stopped.wait(
                max(0.0, started + len(self.sent) / URGENT_PER_SECOND - time.monotonic())
            )

    def latencies(self, phase: str, *, timeout: float) -> Latencies:
        """Once every urgent trigger sent is terminal: each one's 202 -> completed_at."""
        ids = [trigger_id for trigger_id, _ in self.sent]
        done = _completed_at(ids, timeout=timeout)
        return Latencies(phase, [1000 * (done[i] - at) for i, at in self.sent], self.lane)


@contextmanager
def urgent_senders(
    port: int, api_key: str, workflows: dict[str, str], *, limit: int | None = None
) -> Iterator[list[UrgentSender]]:
    """An UrgentSender per lane (lane -> workflow key), all sending at once."""
    with ExitStack() as stack:
        yield [
            stack.enter_context(UrgentSender(port, api_key, key, lane, limit=limit))
            for lane, key in workflows.items()
        ]


def latencies_of(senders: list[UrgentSender], phase: str) -> list[Latencies]:
    return [sender.latencies(phase, timeout=120) for sender in senders]


def _completed_at(ids: list[str], *, timeout: float) -> dict[str, float]:
    """Each run's completed_at (epoch s), once all are completed; raise after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT id::text, status, extract(epoch FROM completed_at) FROM trigger_instance "
                "WHERE id = ANY(%s::uuid[])",
                [ids],
            )
            rows = cursor.fetchall()
        if len(rows) == len(ids) and all(status == "completed" for _, status, _ in rows):
            return {trigger_id: float(at) for trigger_id, _, at in rows}
        if any(status == "failed" for _, status, _ in rows):
            raise RuntimeError("an urgent trigger failed; see the worker log")
        if time.monotonic() > deadline:
            raise RuntimeError(f"urgent triggers not all completed after {timeout:.0f}s")
        time.sleep(0.5)


def _chunk_gaps(workflow_id: int) -> list[float]:
    """Seconds between the fan-out's consecutive chunks: its runs' distinct created_at."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT extract(epoch FROM created_at) FROM trigger_instance "
            "WHERE workflow_id = %s ORDER BY 1",
            [workflow_id],
        )
        times = [float(row[0]) for row in cursor.fetchall()]
    return [b - a for a, b in itertools.pairwise(times)]


def _bulk(port: int, api_key: str, workflow_key: str, topic: str, n: int) -> float:
    """N runs, one per subscriber of the topic, by bulk requests; when the first was sent."""
    prefix = f"bulk-{uuid.uuid4().hex[:8]}"
    size = settings.NOTIFLOW_BULK_MAX
    batches = [range(start, min(n, start + size)) for start in range(0, n, size)]
    clients = [Api(port, api_key) for _ in range(BULK_CLIENTS)]
    lock = threading.Lock()

    def client(api: Api) -> None:
        while True:
            with lock:
                if not batches:
                    return
                batch = batches.pop(0)
            items = [
                {
                    "workflow": workflow_key,
                    "idempotency_key": f"{prefix}-{i}",
                    "payload": PAYLOAD,
                    "recipient": f"{topic}-u{i + 1}",  # audience_load's keys
                }
                for i in batch
            ]
            status, answer = api.post("/api/triggers/bulk/", {"triggers": items})
            if status != 200 or any(item["status"] != 201 for item in answer["results"]):
                raise RuntimeError(f"a bulk request was refused: {status} {str(answer)[:500]}")

    started = time.time()
    try:
        with ThreadPoolExecutor(BULK_CLIENTS) as pool:
            list(pool.map(client, clients))
    finally:
        for api in clients:
            api.close()
    return started


def _fanout(port: int, api_key: str, workflow_key: str, topic: str) -> float:
    """One trigger request for the topic; when its 202 came."""
    api = Api(port, api_key)
    try:
        body = {
            "workflow": workflow_key,
            "idempotency_key": f"fanout-{uuid.uuid4().hex[:8]}",
            "topic": topic,
            "payload": PAYLOAD,
        }
        status, answer = api.post("/api/triggers/", body)
        if status != 202:
            raise RuntimeError(f"the fan-out was refused: {status} {answer}")
        return time.time()
    finally:
        api.close()


def fanout_e2e_run(bench: Any, say: Callable[[str], None]) -> FanoutE2e:
    """Both sides and the urgent triggers, as the module says."""
    begun = time.monotonic()
    n, config, key = bench.args.fanout_subscribers, bench.config, bench.api_key
    infra.redis_flush(config)
    use_database(config.db_name("engine"))
    topic = f"bench-e2e-{n}-{uuid.uuid4().hex[:6]}"
    say(f"fanout_e2e: loading a topic of {n:,} subscribers")
    audience_load(config.db_url("engine"), topic_key=topic, size=n)
    layout = bench.args.fanout_urgent
    procs = bench.procs
    lanes = LANES[1:] if layout == "shared" else LANES
    prefix = {"own": "urgent.", "shared": ""}  # `urgent.<name>` runs on the queue `urgent`
    urgent = {
        lane: workflow_new(f"urgent-{lane}", ONE_EMAIL, key_prefix=prefix[lane]).key
        for lane in lanes
    }
    worker = procs.worker()
    if layout == "own-nice":  # its process group: the main process and its pool's
        os.setpriority(os.PRIO_PGRP, worker.pid, NICE)
    extra: list[infra.Proc] = []
    if layout != "shared":
        extra.append(procs.worker(name="urgent", args=URGENT_ARGS))
    beat = procs.beat()
    web = procs.web(bench.args.web)
    timeout = 300 + n / 20  # 20 runs/s: far below any engine this bench has seen
    try:
        with urgent_senders(config.port, key, urgent, limit=20) as warm:
            pass  # the workers' and the web process's first requests, not measured
        latencies_of(warm, "warm-up")
        idle: list[list[Latencies]] = []
        sides: list[Side] = []
        for round_ in range(bench.args.repeat):
            say(f"fanout_e2e: {IDLE_URGENT} urgent triggers a lane on the idle engine")
            with urgent_senders(config.port, key, urgent, limit=IDLE_URGENT) as senders:
                pass
            idle.append(latencies_of(senders, "idle"))
            say(f"  {'; '.join(map(str, idle[-1]))}")
            for side in ("bulk", "fanout") if round_ % 2 == 0 else ("fanout", "bulk"):
                workflow = workflow_new(f"e2e-{side}", ONE_EMAIL)
                say(f"fanout_e2e: {side}, {n:,} runs, urgent triggers meanwhile")
                with urgent_senders(config.port, key, urgent) as senders:
                    if side == "bulk":
                        started = _bulk(config.port, key, workflow.key, topic, n)
                    else:
                        started = _fanout(config.port, key, workflow.key, topic)
                    done = wait_finished(workflow.pk, n, timeout=timeout)
                latencies = latencies_of(senders, f"during {side}")
                gaps = _chunk_gaps(workflow.pk) if side == "fanout" else []
                sides.append(Side(side, n, done.last_completed - started, latencies, gaps))
                say(f"  {sides[-1]}")
    finally:
        for proc in (web, beat, *extra, worker):
            procs.stop(proc)
        infra.redis_flush(config)
    return FanoutE2e(n, layout, idle, sides, time.monotonic() - begun)


def fanout_e2e_rows(bench: Any, r: dict[str, Any], a: Any) -> list[Row]:
    """Runs completed per second, fan-out over bulk (target 0.95); the urgent triggers' p99, a
    row per lane: the first (the urgent worker's, unless `shared`) against the target, the
    standard worker's queue beside it as the same run's A/B."""
    run: FanoutE2e | None = r.get("fanout_e2e")
    if run is None or not run.sides:
        return []
    n = run.audience
    rate = {s: [x.per_second for x in run.sides if x.side == s] for s in ("fanout", "bulk")}
    gaps = [max(x.chunk_gaps) for x in run.sides if x.chunk_gaps]
    value, text = ratio(rate["fanout"], rate["bulk"])
    default = next(iter(URGENT_WHERE))  # the flag's default (tests/test_bench_parts.py)
    layout = {} if run.urgent_layout == default else {"fanout_urgent": run.urgent_layout}
    command = bench.cmd("fanout_e2e", fanout_subscribers=n, **layout)
    rows = [
        Row(
            f"4c. fan-out of a {n:,}-subscriber topic through the workers (runs completed/s, "
            "202 to the last run completed) against the same runs by POST /api/triggers/bulk/",
            f"fan-out {spread(rate['fanout'], '/s')}; bulk {spread(rate['bulk'], '/s')}; the "
            f"longest gap between two chunks {spread(gaps, ' s', digits=2)}; the part took "
            f"{run.seconds:.0f} s",
            ratio=f"fanout/bulk {text}" if text else "",
            target=">= 0.95",
            met=value >= 0.95 if value is not None else None,
            command=command,
        )
    ]
    for i, lane in enumerate(run.lanes):
        p99 = {s: [x.urgent[i].quantile(0.99) for x in run.sides if x.side == s] for s in rate}
        idle = [round_[i].quantile(0.99) for round_ in run.idle]
        busy, busy_text = ratio(p99["fanout"], idle)
        where = URGENT_WHERE[run.urgent_layout if lane == "own" else lane]
        measured = i == 0  # the lane the layout is for; the next is its A/B
        rows.append(
            Row(
                f"4d. urgent single triggers (priority 9, {URGENT_PER_SECOND}/s) during the "
                f"fan-out (p99 ms, 202 to completed){where}"
                + ("" if measured else ", in the same run (the A/B)"),
                f"during the fan-out {spread(p99['fanout'], ' ms', digits=0)}; during bulk "
                f"{spread(p99['bulk'], ' ms', digits=0)}; on the idle engine "
                f"{spread(idle, ' ms', digits=0)} ({IDLE_URGENT} triggers a round)",
                ratio=f"fanout/idle {busy_text}" if busy_text else "",
                target="<= 2 x idle" if measured else "",
                met=(busy <= 2 if busy is not None else None) if measured else None,
                command=command,
            )
        )
    return rows
