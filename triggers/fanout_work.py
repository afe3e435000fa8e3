"""Fan-outs as leased work (common/leased_work.py; docs/design/recipients.md, "Topics and fan-out"): a
fan-out waits `running` with no lease until its next chunk is due, is leased while a worker makes
that chunk, and its nudge is a chunk task (`workers.fanout_chunk`, the fan-out's id alone) on its
workflow's queue at FANOUT_CHUNK_PRIORITY, the top of the scale, whatever the fan-out's own
priority (its runs keep that one): oldest due first. Its statements are written whole in
triggers/statements/: the claim (`fanout_claim.sql`), the fenced release (`fanout_release.sql`)
and the two sweeps (`fanouts_sweep_*.sql`); what a chunk does between its claim and its release
is triggers/fanout.py's.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from django.conf import settings
from django.db import connection, transaction

from common.broker import PRIORITY_MAX, nudges_publish
from common.leased_work import LeasedWork, Swept
from common.statements import statement_load
from recipients.models import Fanout, FanoutStatus
from triggers.work import RUNS

FANOUT_CHUNK_TASK = "workers.fanout_chunk"
# Chunk tasks go ahead of every run's nudge (docs/design/recipients.md, "Chunks before runs"), and
# so do a schedule's (schedules/work.py) and a bulk action's (triggers/action_work.py): a chunk is
# intake (or an operator's repair) done by a worker, short and one at a time per fan-out, and at its own
# priority it waited behind every nudge of its queue, its own chunk's runs first (3-8 minutes
# between chunks under a backlog). kombu's Redis transport clamps a message's priority to 0-9,
# so there is no level above the runs' scale: its top is shared with the most urgent runs.
FANOUT_CHUNK_PRIORITY = PRIORITY_MAX
# The statuses the fan-outs' statements take, as parameters.
FANOUT_STATUS_PARAMS: dict[str, str] = {
    f"fo_{status}": str(status) for status in FanoutStatus.values
}
_CLAIM_SQL = statement_load(__file__, "fanout_claim")
_RELEASE_SQL = statement_load(__file__, "fanout_release")


@dataclass(frozen=True)
class FanoutNudge:
    """A chunk task for one fan-out: the workflow's queue, and how many seconds the worker
    should wait before taking it (None: at once); always at FANOUT_CHUNK_PRIORITY."""

    fanout_id: UUID | str
    queue: str
    countdown: float | None = None
    priority: int = FANOUT_CHUNK_PRIORITY


def fanout_claim(fanout_id: UUID | str, *, token: str) -> bool:
    """Lease the fan-out under `token` if it is running, due and free, committed on its own
    (outside any transaction); False when another holds it or it is not to be worked on."""
    with connection.cursor() as cursor:
        cursor.execute(
            _CLAIM_SQL,
            {
                **FANOUT_STATUS_PARAMS,
                "id": str(fanout_id),
                "token": token,
                "lease": settings.NOTIFLOW_LEASE_SECONDS,
            },
        )
        return cursor.fetchone() is not None


def fanout_release(
    fanout_id: UUID | str,
    *,
    token: str,
    status: str,
    cursor: int | None = None,
    created: int = 0,
    error: str = "",
    wait: float = 0,
    nudged: bool = False,
) -> bool:
    """End the lease `token` (fenced: False, nothing written, when it is no longer the
    fan-out's): the new status, the cursor (None: kept), the runs made, the error to show ("":
    the last one stays), the next chunk due in `wait` seconds on the database's clock, and
    whether its task is published on commit (`nudged`)."""
    with connection.cursor() as db:
        db.execute(
            _RELEASE_SQL,
            {
                **FANOUT_STATUS_PARAMS,
                "id": str(fanout_id),
                "token": token,
                "status": str(status),
                "cursor": cursor,
                "created": created,
                "error": error,
                "wait": wait,
                "nudged": nudged,
            },
        )
        return db.rowcount == 1


def fanout_chunks_enqueue_on_commit(nudges: list[FanoutNudge]) -> None:
    """Publish the chunk tasks of `nudges` once the current transaction commits."""
    if nudges:
        transaction.on_commit(lambda: _chunks_publish(nudges))


def _chunks_publish(nudges: list[FanoutNudge]) -> None:
    """Publish now, by task name (triggers does not import workers)."""
    nudges_publish(
        FANOUT_CHUNK_TASK,
        nudges,
        arg=lambda nudge: str(nudge.fanout_id),
        direct=settings.NOTIFLOW_DIRECT_PUBLISH,
        sweep="the fan-outs' sweep",
    )


def _nudge(row: Swept) -> FanoutNudge:
    # The row's priority (the fan-out's) only orders a sweep's batch: the more urgent published
    # first (common/leased_work.py); the task goes at FANOUT_CHUNK_PRIORITY all the same.
    fanout_id, countdown, queue, _ = row
    # A workflow gone has no queue: the default one's worker takes the task and fails the fan-out.
    return FanoutNudge(fanout_id, str(queue or settings.CELERY_TASK_DEFAULT_QUEUE), countdown)


FANOUTS: LeasedWork[FanoutNudge] = LeasedWork(
    name="fan-out",
    table=Fanout._meta.db_table,
    sweep_due_sql=statement_load(__file__, "fanouts_sweep_due"),
    sweep_expired_sql=statement_load(__file__, "fanouts_sweep_expired"),
    params=FANOUT_STATUS_PARAMS,
    queues=RUNS.queues,  # chunk tasks wait among the runs' nudges, in the workflows' queues
    nudge=_nudge,
    enqueue_on_commit=fanout_chunks_enqueue_on_commit,
)
