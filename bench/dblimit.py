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
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

from bench.cpu import CpuMeter, backends

NODES = [("welcome", "email"), ("text", "sms"), ("follow_up", "email")]


def engine_statements() -> dict[str, Any]:
    """The engine's own SQL texts and the claim's ledger parameters (call where Django is set up;
    the children get plain strings and lists)."""
    from events.services.outbox import Announcement
    from triggers.announce import outbox_release_writes
    from triggers.state import (
        Release,
        ReleaseWrite,
        claim_params,
        claim_statement,
        release_params,
        release_statement,
    )
    from workers.services.engine import SEND_OPEN

    bench_event = Announcement(type="message.sent", trigger_id=None, workflow_key="", data={})
    from workers.sql import (
        SEND_COMPLETE_SQL,
        STEP_LOG_SQL,
        send_complete_params,
        step_log_params,
    )

    now = datetime.now(UTC)
    # Every parameter the statements take, from the engine's own builders; each step then sets
    # the ones that vary (_step).
    outcome_params = {
        **release_params(
            trigger_id="",
            lease_token="",
            event_node_id=None,
            release=Release(status="", current_node_id=None, available_at=now, reason=""),
        ),
        **send_complete_params(trigger_id="", node_id="", result={}),
        **outbox_release_writes([bench_event])[0].params,
        **step_log_params(
            workflow_id=0,
            node_id="",
            node_type="",
            started_at=now,
            finished_at=now,
            input={},
            output=None,
            error="",
        ),
    }
    return {
        "claim": claim_statement(SEND_OPEN),
        "claim_params": claim_params(trigger_id="", worker_id="", lease_seconds=60, also=SEND_OPEN),
        # A send step's release as the engine writes it: the ledger, the step log, and its
        # events (message.sent, and trigger.completed at the last node), which no endpoint
        # subscribes to here, as in the engine bench.
        "outcome": release_statement(
            [
                ReleaseWrite(SEND_COMPLETE_SQL, {}),
                ReleaseWrite(STEP_LOG_SQL, {}),
                *outbox_release_writes([bench_event]),
            ]
        ),
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
    # The row ends with SEND_OPEN's returns: the ledger row's send_count, an earlier result.
    if claimed is None or claimed[-2] is None:
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
    finished = datetime.now(UTC)
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
            "available_at": finished,
            "nudged": not last,
            "error": "",
            "finished": last,
            "token": token,
            "reason": f"{node_id} done",
            "event_node": node_id,
            "ledger_result": json.dumps(result),
            "ledger_trigger": trigger_id,
            "ledger_node": node_id,
            "log_workflow": workflow,
            "log_node": node_id,
            "log_type": channel,
            "log_started": started,
            "log_finished": finished,
            "log_input": json.dumps(context),
            "log_output": json.dumps(result),
            "log_success": True,
            "log_error": "",
            "ev_events": json.dumps(
                [
                    {
                        "event_id": str(uuid.uuid4()),
                        "type": kind,
                        "trigger_id": trigger_id,
                        "workflow_key": "bench",
                        "data": data,
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
