"""Stopping a fan-out (docs/design/recipients.md, "Topics and fan-out"; docs/security/findings.md, "Fan-outs"):
POST /api/fanouts/<id>/cancel/.

The fence is the fan-out's row. A chunk task takes it FOR UPDATE SKIP LOCKED and goes on only
while it is `running` (triggers/fanout.py), and so does the sweeper's resume; the cancel takes
it FOR UPDATE, which waits for a chunk under way to commit, and sets `cancelled` in the same
transaction as it cancels the runs made, so after it no chunk makes a run and the runs it read
are all there were.

The runs made are found without a column of their own: they are the workflow's runs created
since the fan-out whose idempotency key is the one the fan-out derives for their recipient
(`fanout_run_key`), which no other run can hold (exactly once, triggers/fanout.py). They are
read on the (workflow, created_at) index and cancelled through the triggers' own state machine
(`triggers_cancel_many`: each locked, its event, its `trigger.cancelled`).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import timedelta
from uuid import UUID

from django.db import transaction
from django.db.models.functions import Now

from recipients.models import Fanout, FanoutStatus
from triggers.fanout import fanout_run_key
from triggers.models import TERMINAL_STATUSES, TriggerInstance
from triggers.state import triggers_cancel_many

# How many candidate runs are read from the database at a time.
_READ_BATCH = 2000
_CREATED_MARGIN = timedelta(minutes=1)


class FanoutNotRunning(Exception):
    """The fan-out is finished already (done, failed or cancelled): nothing was changed."""

    def __init__(self, fanout: Fanout):
        super().__init__(f"fan-out {fanout.pk} is already {fanout.status}")
        self.fanout = fanout


@transaction.atomic
def fanout_cancel(
    *,
    fanout_id: UUID | str,
    actor: str,
    runs: bool = False,
    workflow_keys: Collection[str] | None = None,
) -> tuple[Fanout, list[UUID]]:
    """Stop a running fan-out: no chunk makes a run after this commits; with `runs`, also cancel
    every run it made that has not finished, in the same transaction; (the fan-out, the runs
    cancelled). `workflow_keys` (an API key's limit) hides the fan-outs of other workflows.
    Raises Fanout.DoesNotExist (unknown or hidden) and FanoutNotRunning (already finished)."""
    fanouts = Fanout.objects.select_for_update()
    if workflow_keys is not None:
        fanouts = fanouts.filter(workflow_key__in=list(workflow_keys))
    fanout = fanouts.get(pk=fanout_id)
    if fanout.status != FanoutStatus.RUNNING:
        raise FanoutNotRunning(fanout)
    Fanout.objects.filter(pk=fanout.pk).update(
        status=FanoutStatus.CANCELLED, finished_at=Now(), updated_at=Now()
    )
    cancelled = (
        triggers_cancel_many(
            trigger_ids=_runs_made(fanout), actor=actor, reason=f"fan-out {fanout.pk} cancelled"
        )
        if runs
        else []
    )
    fanout.refresh_from_db()
    return fanout, cancelled


def _runs_made(fanout: Fanout) -> list[UUID]:
    """The fan-out's runs that have not finished (nor been deleted)."""
    candidates = (
        TriggerInstance.objects.filter(
            workflow__key=fanout.workflow_key,
            # A run's created_at is its transaction's start, the fan-out's its statement's: a
            # margin, which the exact key check below makes free.
            created_at__gte=fanout.created_at - _CREATED_MARGIN,
            deleted_at__isnull=True,
        )
        .exclude(status__in=TERMINAL_STATUSES)
        .values_list("pk", "idempotency_key", "recipient")
    )
    return [
        pk
        for pk, key, recipient in candidates.iterator(chunk_size=_READ_BATCH)
        if key == fanout_run_key(fanout.idempotency_key, recipient)
    ]
