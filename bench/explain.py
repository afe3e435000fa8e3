"""EXPLAIN (ANALYZE, BUFFERS) of the hot queries: claim, release, send ledger, sweeps, log reads.

Writing statements are explained inside a transaction that is rolled back, so they change nothing.
Imported only after django.setup() (see bench.__main__).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from bench.fixtures import PAYLOAD
from common.leased_work import sweep_params
from triggers.models import TriggerInstance
from triggers.services import trigger_create
from triggers.sql import CLAIM_SQL, RELEASE_SQL
from triggers.steps import Release, StepRecord, claim_params, release_params
from triggers.work import RUNS
from workers.selectors import step_log_list
from workers.services.ledger import ledger_sent
from workflows.models import Workflow
from workflows.semantics import sending_types


@dataclass(frozen=True)
class Plan:
    name: str
    milliseconds: float
    seq_scans: list[str]  # tables read by a sequential scan
    text: str

    @property
    def partitions(self) -> list[str]:
        """The partitions of the partitioned history tables that the plan reads: fewer than all
        is PostgreSQL's pruning at work."""
        return partitions_read(self.text)


def partitions_read(text: str) -> list[str]:
    return sorted(
        set(re.findall(r" on ((?:step_log|trigger_event)_(?:legacy|before|p\d{8}))\b", text))
    )


class _Rollback(Exception):
    pass


def _explain(name: str, sql: str, params: Any) -> Plan:
    lines: list[str] = []
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
            lines = [row[0] for row in cursor.fetchall()]
            raise _Rollback
    except _Rollback:
        pass
    text = "\n".join(lines)
    timing = re.search(r"Execution Time: ([\d.]+) ms", text)
    return Plan(
        name=name,
        milliseconds=float(timing.group(1)) if timing else 0.0,
        seq_scans=sorted(set(re.findall(r"Seq Scan on (\w+)", text))),
        text=text,
    )


def plans(workflow: Workflow) -> list[Plan]:
    """The plans on the database as it is now (run it after the history load)."""
    trigger, _ = trigger_create(
        workflow_key=workflow.key,
        idempotency_key=f"explain-{uuid.uuid4().hex[:8]}",
        payload=PAYLOAD,
    )
    token = "explain:1"  # noqa: S105 (a lease token, not a secret)
    params = claim_params(
        trigger_id=trigger.pk, worker_id=token, lease_seconds=60, channels=tuple(sending_types())
    )
    # The claim and the release are database functions: their plans show the call (the time is
    # the whole body's), not the statements inside.
    claim = _explain("claim (function: lock, update, event, ledger row)", CLAIM_SQL, params)
    with connection.cursor() as cursor:  # now claim it for real, so the release and ledger apply
        cursor.execute(CLAIM_SQL, params)
    sweep = sweep_params(RUNS, renudge_lost=True)
    # A run's logs as `GET /api/triggers/<id>/logs/` reads them: by the run and its creation
    # time, so that PostgreSQL reads the run's partition and the old table only.
    some_log = step_log_list().order_by("-id").values_list("trigger_id", flat=True)[:1].get()
    created = TriggerInstance.objects.values_list("created_at", flat=True).get(pk=some_log)
    by_trigger = step_log_list(trigger_id=str(some_log), run_created_at=created)[:50]
    by_trigger_sql = by_trigger.query.sql_with_params()
    by_node = step_log_list(node_id="welcome")[:50].query.sql_with_params()
    now = timezone.now()
    step_log = {
        "node_type": "email",
        "started_at": now.isoformat(),
        "input": {},
        "output": {},
        "error": "",
    }
    release = release_params(
        trigger_id=trigger.pk,
        lease_token=token,
        step_node_id="welcome",
        release=Release(
            status="enqueued",
            current_node_id="text",
            wait=timedelta(0),
            reason="explain",
            nudged=True,
        ),
        record=StepRecord(ledger=ledger_sent({}), step_log=step_log),
    )
    return [
        claim,
        _explain("outcome (function: release, event, ledger, step log)", RELEASE_SQL, release),
        _explain("sweep: due", RUNS.sweep_due_sql, sweep),
        _explain("sweep: expired leases", RUNS.sweep_expired_sql, sweep),
        _explain("logs of a trigger (API)", *by_trigger_sql),
        _explain("logs of a node, first page (API)", *by_node),
    ]
