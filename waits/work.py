"""Event waits' timeouts as leased work (common/leased_work.py; docs/design/waits.md, "Waiting for
events"): an open wait is due at its deadline; its nudge is a timeout task
(`workers.wait_time_out`, the wait's id alone) on its run's workflow's queue at its run's
priority, earliest deadline first, which leases the wait while it closes it. Its statements are
written whole in waits/statements/ (the claim, the give-back and the two sweeps) but the timeout
itself, waits/sql.py's WAIT_TIME_OUT_SQL, whole there beside the node's own statements, whose
recorded-state function (notiflow_wait_recorded_v1) it calls too.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from common.broker import nudges_publish
from common.leased_work import LeasedWork, Swept
from common.statements import statement_load
from triggers.work import RUNS
from waits.models import EventWait

WAIT_TIME_OUT_TASK = "workers.wait_time_out"


@dataclass(frozen=True)
class TimeoutNudge:
    """A timeout task for one wait: its run's queue and priority, and the seconds to its
    deadline (None: at once)."""

    wait_id: int
    queue: str
    priority: int
    countdown: float | None = None


def _nudge(row: Swept) -> TimeoutNudge:
    wait_id, countdown, queue, priority = row
    # A workflow gone has no queue: the default one's worker closes the wait.
    return TimeoutNudge(
        int(wait_id),
        str(queue or settings.CELERY_TASK_DEFAULT_QUEUE),
        int(priority or 0),
        countdown,
    )


def timeouts_enqueue_on_commit(nudges: list[TimeoutNudge]) -> None:
    """Publish the timeout tasks of `nudges` once the current transaction commits, by task name
    (waits does not import workers). A broker failure is logged, not raised: the sweep sends
    them again."""
    if nudges:
        transaction.on_commit(lambda: _publish(nudges))


def _publish(nudges: list[TimeoutNudge]) -> None:
    nudges_publish(
        WAIT_TIME_OUT_TASK,
        nudges,
        arg=lambda nudge: nudge.wait_id,
        direct=settings.NOTIFLOW_DIRECT_PUBLISH,
        sweep="the waits' sweep",
    )


WAITS: LeasedWork[TimeoutNudge] = LeasedWork(
    name="wait timeout",
    table=EventWait._meta.db_table,
    sweep_due_sql=statement_load(__file__, "waits_sweep_due"),
    sweep_expired_sql=statement_load(__file__, "waits_sweep_expired"),
    params={},
    queues=RUNS.queues,  # timeout tasks wait among the runs' nudges, in the workflows' queues
    nudge=_nudge,
    enqueue_on_commit=timeouts_enqueue_on_commit,
)
