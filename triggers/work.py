"""Runs as leased work (common/leased_work.py; docs/design/leased-work.md, "Leased work"): a trigger waits
`enqueued`, is leased while `processing`, and is never worked on once soft-deleted (rule 12). Its
nudge goes to the queue of its workflow as it is now, at the trigger's priority (rule 11), most
urgent first. Its sweeps are written whole in triggers/statements/runs_sweep_*.sql; the claim
and the release are the run's own functions (triggers/sql.py).
"""

from __future__ import annotations

from django.db.models import QuerySet

from common.leased_work import LeasedWork, Swept
from common.statements import statement_load
from triggers.dispatch import Nudge, triggers_enqueue_on_commit
from triggers.sql import STATUS_PARAMS, TRIGGER_TABLE
from workflows.models import Workflow


def _queues() -> QuerySet[Workflow, str]:
    """The line the sweeper's back-pressure reads: all the workflows' queues together."""
    return Workflow.objects.values_list("queue", flat=True).distinct()


def _nudge(row: Swept) -> Nudge:
    trigger_id, countdown, queue, priority = row
    return Nudge(trigger_id, str(queue), int(priority or 0), countdown)


RUNS: LeasedWork[Nudge] = LeasedWork(
    name="run",
    table=TRIGGER_TABLE,
    sweep_due_sql=statement_load(__file__, "runs_sweep_due"),
    sweep_expired_sql=statement_load(__file__, "runs_sweep_expired"),
    params=STATUS_PARAMS,
    queues=_queues,
    nudge=_nudge,
    enqueue_on_commit=triggers_enqueue_on_commit,
)
