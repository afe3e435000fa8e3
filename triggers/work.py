"""Runs as leased work (common/leased_work.py; docs/design.md, "Leased work"): a trigger waits
`enqueued`, is leased while `processing`, and is never worked on once soft-deleted (rule 12). Its
nudge goes to the queue of its workflow as it is now, at the trigger's priority (rule 11), most
urgent first. The claim and the release are the run's own statements (triggers/sql.py).
"""

from __future__ import annotations

from django.db.models import QuerySet

from common.leased_work import LeasedWork, Swept
from triggers.dispatch import Nudge, triggers_enqueue_on_commit
from triggers.sql import ENQUEUED, PROCESSING, STATUS_PARAMS, TRIGGER_TABLE
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
    waiting=f"status = {ENQUEUED}",
    leased=f"status = {PROCESSING}",
    live="deleted_at IS NULL",
    route=f"(SELECT w.queue FROM {Workflow._meta.db_table} w WHERE w.id = t.workflow_id), t.priority",  # noqa: S608 (names from the models)
    urgency="priority DESC",
    params=STATUS_PARAMS,
    queues=_queues,
    nudge=_nudge,
    enqueue_on_commit=triggers_enqueue_on_commit,
)
