"""Schedules as leased work (common/leased_work.py; docs/guide/schedules.md): a schedule waits
with no lease until its next step is due (an occurrence's instant in its next zone, or the time
to read an occurrence's zones), is leased while a worker takes that step, and its nudge is a
task (`workers.schedule_fire`, the schedule's id alone) on its workflow's queue at the
workflow's priority, oldest due first. One beat entry sweeps them all, however many there are.
Its statements are written whole in schedules/statements/: the claim (`schedule_claim.sql`),
the fenced release (`schedule_release.sql`), the give-back of a failed step
(`schedule_give_back.sql`) and the two sweeps (`schedules_sweep_*.sql`); what a step does is
schedules/firing.py's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from common.broker import nudges_publish
from common.leased_work import LeasedWork, Swept
from common.statements import statement_load
from schedules.models import Schedule
from triggers.fanout_work import FANOUT_CHUNK_PRIORITY
from triggers.work import RUNS

SCHEDULE_FIRE_TASK = "workers.schedule_fire"
_CLAIM_SQL = statement_load(__file__, "schedule_claim")
_RELEASE_SQL = statement_load(__file__, "schedule_release")
_GIVE_BACK_SQL = statement_load(__file__, "schedule_give_back")


@dataclass(frozen=True)
class ScheduleNudge:
    """A task for one schedule on its workflow's queue, ahead of every run's nudge as a fan-out's
    chunk is (its runs keep the workflow's priority), and how many seconds the worker should wait
    before taking it (None: at once)."""

    schedule_id: str
    queue: str
    countdown: float | None = None

    @property
    def priority(self) -> int:
        return FANOUT_CHUNK_PRIORITY


@dataclass(frozen=True)
class FiringState:
    """A schedule's firing state as a step leaves it (schedules/models.py)."""

    next_local: str
    zones: list[list[str]] | None
    cursor: int
    zone_runs: int
    # The runs the occurrence under way was charged to the key's rate (schedules/admission.py).
    charged: int = 0


def schedule_claim(schedule_id: str, *, token: str) -> datetime | None:
    """Lease the schedule under `token` if it is active, due and free, committed on its own
    (outside any transaction): the database's clock at the claim, or None when another holds it
    or it is not to be worked on."""
    with connection.cursor() as cursor:
        cursor.execute(
            _CLAIM_SQL,
            {"id": schedule_id, "token": token, "lease": settings.NOTIFLOW_LEASE_SECONDS},
        )
        row = cursor.fetchone()
    return None if row is None else row[1]


def schedule_release(
    schedule_id: str,
    *,
    token: str,
    state: FiringState,
    created: int = 0,
    error: str = "",
    wait: float = 0,
    nudged: bool = False,
) -> bool:
    """End the lease `token` (fenced: False, nothing written, when it is no longer the
    schedule's) with the firing `state`, the runs made, the error to show ('': the last one
    stays), the next step due in `wait` seconds on the database's clock, and whether its task is
    published on commit (`nudged`)."""
    params: dict[str, Any] = {
        "id": schedule_id,
        "token": token,
        "next_local": state.next_local,
        "zones": None if state.zones is None else json.dumps(state.zones),
        "cursor": state.cursor,
        "zone_runs": state.zone_runs,
        "charged": state.charged,
        "created": created,
        "error": error,
        "wait": wait,
        "nudged": nudged,
    }
    with connection.cursor() as cursor:
        cursor.execute(_RELEASE_SQL, params)
        return cursor.rowcount == 1


def schedule_give_back(schedule_id: str, *, token: str, error: str, wait: float) -> bool:
    """Clear the lease `token` of a step that failed (fenced), its state as it was and its
    reason shown, due again in `wait` seconds."""
    with connection.cursor() as cursor:
        cursor.execute(
            _GIVE_BACK_SQL, {"id": schedule_id, "token": token, "error": error, "wait": wait}
        )
        return cursor.rowcount == 1


def schedules_enqueue_on_commit(nudges: list[ScheduleNudge]) -> None:
    """Publish the tasks of `nudges` once the current transaction commits."""
    if nudges:
        transaction.on_commit(lambda: _publish(nudges))


def _publish(nudges: list[ScheduleNudge]) -> None:
    """Publish now, by task name (schedules does not import workers)."""
    nudges_publish(
        SCHEDULE_FIRE_TASK,
        nudges,
        arg=lambda nudge: nudge.schedule_id,
        direct=settings.NOTIFLOW_DIRECT_PUBLISH,
        sweep="the schedules' sweep",
    )


def _nudge(row: Swept) -> ScheduleNudge:
    schedule_id, countdown, queue, _ = row  # the workflow's priority orders the sweep's batch
    # A workflow gone has no queue: the default one's worker takes the task and records why.
    return ScheduleNudge(
        str(schedule_id), str(queue or settings.CELERY_TASK_DEFAULT_QUEUE), countdown
    )


SCHEDULES: LeasedWork[ScheduleNudge] = LeasedWork(
    name="schedule",
    table=Schedule._meta.db_table,
    sweep_due_sql=statement_load(__file__, "schedules_sweep_due"),
    sweep_expired_sql=statement_load(__file__, "schedules_sweep_expired"),
    params={},
    queues=RUNS.queues,  # schedule tasks wait among the runs' nudges, in the workflows' queues
    nudge=_nudge,
    enqueue_on_commit=schedules_enqueue_on_commit,
)
