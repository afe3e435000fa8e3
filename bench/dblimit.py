"""Figure 3: the engine's per-step SQL driven from plain psycopg, as fast as PostgreSQL allows.

The statements are the engine's own, in the engine's order and transaction shape (the claim
text is imported from triggers.state; the others mirror workers.services and triggers.state;
`make bench ARGS="--only queries"` prints what the engine really sends, to compare). What is left
out is everything that is not the database: Celery, the broker, Django, templates, providers.
Same concurrency as the worker (one process per core), same FIFO order (all first steps, then
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

import psycopg

NODES = [("welcome", "email"), ("text", "sms"), ("follow_up", "email")]

SEND_BEGIN_SQL = """
WITH owner AS (
    SELECT id FROM trigger_instance
    WHERE id = %(trigger)s AND status = 'processing' AND leased_by = %(token)s
)
INSERT INTO send_ledger (trigger_id, node_id, idempotency_key, channel, status,
                         send_count, created_at)
SELECT id, %(node)s, %(key)s, %(channel)s, 'sending', 1, now() FROM owner
ON CONFLICT (trigger_id, node_id) DO UPDATE
    SET send_count = send_ledger.send_count + 1
    WHERE send_ledger.status = 'sending'
RETURNING send_count
"""

SEND_COMPLETE_SQL = """
UPDATE send_ledger SET status = 'sent', result = %s::jsonb, sent_at = now()
WHERE trigger_id = %s AND node_id = %s AND status = 'sending'
"""

RELEASE_SQL = """
UPDATE trigger_instance
SET status = %(status)s, current_node_id = %(node)s,
    vars = vars || %(patch)s::jsonb, attempts = %(attempts)s,
    available_at = %(available_at)s, lease_until = NULL, leased_by = '',
    nudged_at = CASE WHEN %(nudged)s THEN now() END, last_error = %(error)s,
    completed_at = CASE WHEN %(finished)s THEN now() END, updated_at = now()
WHERE id = %(id)s AND status = 'processing' AND leased_by = %(token)s
"""

EVENT_SQL = """
INSERT INTO trigger_event (trigger_id, from_status, to_status, reason, actor, node_id, created_at)
VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id
"""

STEP_LOG_SQL = """
INSERT INTO step_log (trigger_id, workflow_id, node_id, node_type, attempt, started_at,
                      finished_at, input, output, success, error)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s, %s) RETURNING id
"""

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


def _step(cur: psycopg.Cursor, claim_sql: str, trigger_id: str, index: int, workflow: int) -> None:
    token = f"dblimit:{uuid.uuid4().hex[:12]}"
    cur.execute(claim_sql, {"id": trigger_id, "worker": token, "lease": 60})
    row = cur.fetchone()
    if row is None:
        raise RuntimeError(f"claim of {trigger_id} failed")
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
    cur.execute(
        SEND_BEGIN_SQL,
        {"trigger": trigger_id, "token": token, "node": node_id, "key": key, "channel": channel},
    )
    if cur.fetchone() is None:
        raise RuntimeError(f"send_begin of {key} failed")
    result = {"message_id": f"<{key}@bench>", "to": "ann@example.com", "sent_at": "now"}
    last = index == len(NODES) - 1
    finished = datetime.now(UTC)
    with cur.connection.transaction():
        cur.execute(SEND_COMPLETE_SQL, [json.dumps(result), trigger_id, node_id])
        cur.execute(
            RELEASE_SQL,
            {
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
            },
        )
        if cur.rowcount != 1:
            raise RuntimeError(f"release of {trigger_id} failed")
        cur.execute(
            EVENT_SQL,
            [
                trigger_id,
                "processing",
                "completed" if last else "enqueued",
                f"{node_id} done",
                token,
                node_id,
                finished,
            ],
        )
        cur.execute(
            STEP_LOG_SQL,
            [
                trigger_id,
                workflow,
                node_id,
                channel,
                1,
                started,
                finished,
                json.dumps(context),
                json.dumps(result),
                True,
                "",
            ],
        )


def _worker(url: str, claim_sql: str, ids: list[str], workflow: int, go: Any, out: Any) -> None:
    with psycopg.connect(url, autocommit=True, cursor_factory=psycopg.ClientCursor) as conn:
        conn.execute("SELECT 1")
        out.put("ready")
        go.wait()
        with conn.cursor() as cur:
            for index in range(len(NODES)):
                for trigger_id in ids:
                    _step(cur, claim_sql, trigger_id, index, workflow)
    out.put(len(ids) * len(NODES))


@dataclass(frozen=True)
class DbLimitRun:
    steps: int
    seconds: float
    processes: int

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else 0.0


def dblimit_run(
    url: str, *, claim_sql: str, workflow: int, version: int, triggers: int, processes: int
) -> DbLimitRun:
    """`triggers` x 3 steps of engine SQL from `processes` plain psycopg processes."""
    with psycopg.connect(url, autocommit=True) as conn:
        ids = [
            str(row[0])
            for row in conn.execute(
                CREATE_SQL,
                {
                    "workflow": workflow,
                    "version": version,
                    "prefix": f"db-{uuid.uuid4().hex[:6]}-",
                    "count": triggers,
                },
            ).fetchall()
        ]
        conn.execute("VACUUM ANALYZE trigger_instance")
    context = multiprocessing.get_context("spawn")
    go, out = context.Event(), context.Queue()
    shares = [ids[i::processes] for i in range(processes)]
    children = [
        context.Process(target=_worker, args=(url, claim_sql, share, workflow, go, out))
        for share in shares
    ]
    for child in children:
        child.start()
    for _ in children:  # connected and waiting
        if out.get(timeout=60) != "ready":
            raise RuntimeError("a dblimit process did not start")
    started = time.monotonic()
    go.set()
    steps = sum(out.get(timeout=600 + triggers) for _ in children)
    seconds = time.monotonic() - started
    for child in children:
        child.join(timeout=30)
        if child.exitcode != 0:
            raise RuntimeError(f"a dblimit process failed (exit {child.exitcode})")
    return DbLimitRun(steps=steps, seconds=seconds, processes=processes)
