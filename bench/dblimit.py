"""Figure 3: the engine's per-step SQL driven from plain psycopg, as fast as PostgreSQL allows.

The statements are the engine's own texts (imported from triggers.state and workers.services),
prepared as the engine prepares them (common/db.py), in the engine's order: claim (which opens
the send ledger), outcome (`make bench ARGS="--only queries"` counts what the engine really sends, to compare). What is left out is everything that is not the database:
Celery, the broker, Django, templates, providers, and the engine's per-task health check.
Same concurrency as the worker (CELERY_WORKER_CONCURRENCY processes), same FIFO order (all first steps, then
all second steps, ...), on its own copy of the schema.
"""

from __future__ import annotations

import json
import multiprocessing
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

from bench.cpu import CpuMeter, backends

NODES = [("welcome", "email"), ("text", "sms"), ("follow_up", "email")]


def engine_statements() -> dict[str, Any]:
    """The engine's own SQL texts (the calls of the claim's and the release's functions) and
    their parameters (call where Django is set up; the children get plain strings and lists)."""
    from triggers.sql import CLAIM_SQL, RELEASE_SQL
    from triggers.steps import Release, claim_params, release_params
    from workflows.semantics import sending_types

    # Every parameter the calls take, from the engine's own builders; each step then sets the
    # ones that vary (_step).
    outcome_params = release_params(
        trigger_id="",
        lease_token="",
        step_node_id=None,
        release=Release(status="", current_node_id=None, wait=timedelta(0), reason=""),
    )
    return {
        "claim": CLAIM_SQL,
        "claim_params": claim_params(
            trigger_id="", worker_id="", lease_seconds=60, channels=tuple(sending_types())
        ),
        # A send step's release as the engine calls it: the ledger, the step log, and its
        # events (message.sent, and trigger.completed at the last node), which no endpoint
        # subscribes to here, as in the engine bench.
        "outcome": RELEASE_SQL,
        "outcome_params": outcome_params,
    }


CREATE_SQL = """
INSERT INTO trigger_instance
    (id, workflow_id, workflow_version_id, idempotency_key, payload, status, current_node_id,
     vars, attempts, available_at, leased_by, nudged_at, last_error, created_at, updated_at)
SELECT gen_random_uuid(), %(workflow)s, %(version)s, %(prefix)s || i,
       '{"email": "ann@example.com", "name": "Ann", "phone": "+15550100", "plan": "pro"}',
       'enqueued', 'welcome', '{}', 0, now(), '', now(), '', now(), now()
FROM generate_series(1, %(count)s) AS i
RETURNING id
"""


def triggers_create(url: str, *, workflow: int, version: int, count: int, prefix: str) -> list[str]:
    """`count` triggers enqueued at the first node, created in one statement, then analysed;
    their ids."""
    with psycopg.connect(url, autocommit=True) as conn:
        ids = [
            str(row[0])
            for row in conn.execute(
                CREATE_SQL,
                {
                    "workflow": workflow,
                    "version": version,
                    "prefix": f"{prefix}-{uuid.uuid4().hex[:6]}-",
                    "count": count,
                },
            ).fetchall()
        ]
        conn.execute("VACUUM ANALYZE trigger_instance")
    return ids


def _step(
    cur: psycopg.Cursor, sql: dict[str, Any], trigger_id: str, index: int, workflow: int
) -> None:
    token = f"dblimit:{uuid.uuid4().hex[:12]}"
    cur.execute(sql["claim"], {**sql["claim_params"], "id": trigger_id, "worker": token})
    claimed = cur.fetchone()
    # The row ends with the ledger row's send_count, an earlier result, the claim's now(), the
    # suppression list's generation and whether any endpoint hears events (notiflow_claim_v2).
    if claimed is None or claimed[-5] is None:
        raise RuntimeError(f"claim of {trigger_id} (with its ledger row) failed")
    started = datetime.now(UTC)
    node_id, channel = NODES[index]
    context = {
        "payload": {"email": "ann@example.com", "name": "Ann", "phone": "+15550100"},
        "vars": {},
        "trigger": {"id": trigger_id, "idempotency_key": "k", "created_at": started.isoformat()},
        "workflow": {"key": "bench", "name": "Bench", "version": 1},
        "now": started.isoformat(),
    }
    key = f"{trigger_id}:{node_id}"
    result = {"message_id": f"<{key}@bench>", "to": "ann@example.com", "sent_at": "now"}
    last = index == len(NODES) - 1
    # The events' data, as the engine builds it: the trigger as the API shows it, the message.
    trigger = {"id": trigger_id, "workflow": "bench", "payload": context["payload"], "vars": {}}
    events = [("message.sent", {"trigger": trigger, "message": {"node_id": node_id, **result}})]
    if last:
        events.append(("trigger.completed", {"trigger": trigger}))
    cur.execute(
        sql["outcome"],
        {
            **sql["outcome_params"],
            "id": trigger_id,
            "status": "completed" if last else "enqueued",
            "node": None if last else NODES[index + 1][0],
            "patch": json.dumps({f"{channel}_{node_id}": result}),
            "attempts": 0,
            "due_in": 0.0,
            "nudged": not last,
            "error": "",
            "finished": last,
            "token": token,
            "reason": f"{node_id} done",
            "step_node": node_id,
            "ledger": json.dumps(
                {"outcome": "sent", "result": result, "provider": "", "provider_message_id": ""}
            ),
            "step_log": json.dumps(
                {
                    "node_type": channel,
                    "started_at": started.isoformat(),
                    "input": context,
                    "output": result,
                    "error": "",
                }
            ),
            "events": json.dumps(
                [
                    {
                        "event_id": str(uuid.uuid4()),
                        "type": kind,
                        "trigger_id": trigger_id,
                        "workflow_key": "bench",
                        "data": data,
                        "gate": "",
                    }
                    for kind, data in events
                ]
            ),
        },
    )
    # The release returns the route of the next nudge (queue, priority), or no row.
    if cur.fetchone() is None:
        raise RuntimeError(f"release of {trigger_id} failed")


def _worker(
    url: str, sql: dict[str, Any], ids: list[str], workflow: int, go: Any, done: Any, out: Any
) -> None:
    with psycopg.connect(url, autocommit=True, prepare_threshold=0) as conn:
        conn.execute("SELECT 1")
        out.put("ready")
        go.wait()
        with conn.cursor() as cur:
            for index in range(len(NODES)):
                for trigger_id in ids:
                    _step(cur, sql, trigger_id, index, workflow)
        out.put(len(ids) * len(NODES))
        done.wait(timeout=60)  # keep the connection until the CPU meter has read its backend


@dataclass(frozen=True)
class DbLimitRun:
    steps: int
    seconds: float
    processes: int
    cpu: dict[str, float]

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else 0.0


def dblimit_run(
    url: str, *, sql: dict[str, Any], workflow: int, version: int, triggers: int, processes: int
) -> DbLimitRun:
    """`triggers` x 3 steps of engine SQL from `processes` plain psycopg processes."""
    ids = triggers_create(url, workflow=workflow, version=version, count=triggers, prefix="db")
    context = multiprocessing.get_context("spawn")
    go, done, out = context.Event(), context.Event(), context.Queue()
    shares = [ids[i::processes] for i in range(processes)]
    children = [
        context.Process(target=_worker, args=(url, sql, share, workflow, go, done, out))
        for share in shares
    ]
    for child in children:
        child.start()
    for _ in children:  # connected and waiting
        if out.get(timeout=60) != "ready":
            raise RuntimeError("a dblimit process did not start")
    parts = urlsplit(url)
    server, database = urlunsplit(parts._replace(path="")), parts.path.lstrip("/")
    meter = CpuMeter(
        {
            "psycopg processes": lambda: [c.pid for c in children if c.pid],
            "postgres backends": lambda: backends(server, database),
        }
    )
    meter.start()
    started = time.monotonic()
    go.set()
    steps = sum(out.get(timeout=600 + triggers) for _ in children)
    seconds = time.monotonic() - started
    cpu = meter.stop()
    done.set()
    for child in children:
        child.join(timeout=30)
        if child.exitcode != 0:
            raise RuntimeError(f"a dblimit process failed (exit {child.exitcode})")
    return DbLimitRun(steps=steps, seconds=seconds, processes=processes, cpu=cpu)
