"""Counting a finished run: PostgreSQL's view, the faults injected, and what was delivered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chaos.faults import (
    KILL_POOL_PROCESS,
    KILL_WORKER,
    PG_RESTART,
    REDIS_FLUSH,
    REDIS_RESTART,
    FaultInjector,
)
from chaos.report import ChaosResult, Deliveries

Query = Callable[..., list[tuple[Any, ...]]]

# Two successful step logs for one (trigger, node): a step recorded twice.
_STEPS_LOGGED_TWICE = """
SELECT count(*) FROM (
    SELECT 1 FROM step_log WHERE success GROUP BY trigger_id, node_id HAVING count(*) > 1
) twice
"""
# A completed trigger without one successful step for every node of the workflow.
_INCOMPLETE_RUNS = """
SELECT count(*) FROM trigger_instance t
WHERE t.status = 'completed'
  AND (SELECT count(DISTINCT node_id) FROM step_log s WHERE s.trigger_id = t.id AND s.success)
      <> %s
"""


def tally(
    result: ChaosResult,
    *,
    query: Query,
    fired: dict[str, str],
    faults: FaultInjector,
    deliveries: Deliveries,
    stuck: int,
    nodes: int,
) -> None:
    """Fill `result` in. `fired` maps idempotency key -> trigger id, as the API answered."""
    result.fired = len(fired)
    result.kills_worker = faults.count(KILL_WORKER)
    result.kills_pool_process = faults.count(KILL_POOL_PROCESS)
    result.redis_flushes = faults.count(REDIS_FLUSH)
    result.redis_restarts = faults.count(REDIS_RESTART)
    result.postgres_restarts = faults.count(PG_RESTART)
    result.faults_during_work = sum(1 for fault in faults.log if fault.in_flight)

    statuses: dict[str, int] = dict(
        query("SELECT status, count(*) FROM trigger_instance GROUP BY 1")
    )
    result.completed = statuses.get("completed", 0)
    result.failed = statuses.get("failed", 0)
    result.cancelled = statuses.get("cancelled", 0)
    not_terminal = statuses.get("enqueued", 0) + statuses.get("processing", 0)
    result.stuck = max(not_terminal, stuck)
    in_db = {str(row[0]) for row in query("SELECT id FROM trigger_instance")}
    fired_ids = set(fired.values())
    result.lost = len(fired_ids - in_db)
    result.steps_logged_twice = query(_STEPS_LOGGED_TWICE)[0][0]
    result.incomplete_runs = query(_INCOMPLETE_RUNS, [nodes])[0][0]

    send_counts: dict[str, int] = dict(query("SELECT idempotency_key, send_count FROM send_ledger"))
    result.ledger_resend_rows = sum(1 for n in send_counts.values() if n > 1)
    result.ledger_resends = sum(n - 1 for n in send_counts.values())
    result.deliveries = deliveries
    received = deliveries.by_key
    # A key may arrive as often as the ledger says the provider was called, and no more.
    result.unexplained_duplicates = sum(
        max(0, count - send_counts.get(key, 1)) for key, count in received.items()
    )
    completed = query("SELECT id FROM trigger_instance WHERE status = 'completed'")
    expected = {f"{row[0]}:{node}" for row in completed for node in ("mail", "text")}
    result.missing_deliveries = len(expected - set(received))
    result.unexpected_deliveries = sum(
        1 for key in received if key.partition(":")[0] not in fired_ids
    )
