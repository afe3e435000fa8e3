"""Bulk actions as leased work (common/leased_work.py; docs/bulk-actions.md), as fan-outs are
(triggers/fanout_work.py): an action waits `running` with no lease until its next chunk is due,
is leased while a worker acts on that chunk, and its nudge is a chunk task
(`workers.trigger_action_chunk`, the action's id alone) on the default queue, oldest due first.
Its statements are written whole in triggers/statements/: the claim (`action_claim.sql`), the
fenced release (`action_release.sql`) and the two sweeps (`actions_sweep_*.sql`); what a chunk
does between its claim and its release is triggers/actions.py's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import connection, transaction

from common.broker import nudges_publish
from common.leased_work import LeasedWork, Swept
from common.statements import statement_load
from triggers.fanout_work import FANOUT_CHUNK_PRIORITY
from triggers.models import TriggerAction, TriggerActionStatus

ACTION_CHUNK_TASK = "workers.trigger_action_chunk"
# The statuses the actions' statements take, as parameters.
ACTION_STATUS_PARAMS: dict[str, str] = {
    f"ac_{status}": str(status) for status in TriggerActionStatus.values
}
_CLAIM_SQL = statement_load(__file__, "action_claim")
_RELEASE_SQL = statement_load(__file__, "action_release")
_CHUNK_IDS_SQL = statement_load(__file__, "action_chunk_ids")


@dataclass(frozen=True)
class ActionNudge:
    """A chunk task for one bulk action, on the default queue (an action spans workflows, so no
    workflow's queue is its own) ahead of every run's nudge, as a fan-out's chunk is (a cancel
    asked during a backlog must not wait behind it), after `countdown` seconds (None: at once)."""

    action_id: UUID | str
    countdown: float | None = None

    @property
    def queue(self) -> str:
        return str(settings.CELERY_TASK_DEFAULT_QUEUE)

    @property
    def priority(self) -> int:
        return FANOUT_CHUNK_PRIORITY


def action_claim(action_id: UUID | str, *, token: str) -> bool:
    """Lease the action under `token` if it is running, due and free, committed on its own
    (outside any transaction); False when another holds it or it is not to be worked on."""
    with connection.cursor() as cursor:
        cursor.execute(
            _CLAIM_SQL,
            {
                **ACTION_STATUS_PARAMS,
                "id": str(action_id),
                "token": token,
                "lease": settings.NOTIFLOW_LEASE_SECONDS,
            },
        )
        return cursor.fetchone() is not None


def action_chunk_ids(action_id: UUID | str, *, size: int) -> list[UUID]:
    """The ids of the action's next chunk: at most `size` of its runs after its cursor."""
    with connection.cursor() as cursor:
        cursor.execute(_CHUNK_IDS_SQL, {"id": str(action_id), "size": size})
        row = cursor.fetchone()
    return list(row[0] or []) if row else []


@dataclass(frozen=True)
class ChunkOutcome:
    """What one chunk did: how many of the action's runs it reached (the cursor moves by that),
    and of them done, skipped and in error, with the errors to add to the sample."""

    reached: int = 0
    done: int = 0
    skipped: int = 0
    errors: int = 0
    error_sample: tuple[dict[str, Any], ...] = ()


def action_release(
    action_id: UUID | str,
    *,
    token: str,
    status: str,
    outcome: ChunkOutcome = ChunkOutcome(),
    error: str = "",
    failed_chunk: bool = False,
    wait: float = 0,
    nudged: bool = False,
) -> bool:
    """End the lease `token` (fenced: False, nothing written, when it is no longer the
    action's): the new status, the chunk's outcome added, the error to show ("": the last one
    stays), one more chunk failed in a row (`failed_chunk`) or none, the next chunk due in `wait`
    seconds on the database's clock, and whether its task is published on commit (`nudged`)."""
    with connection.cursor() as db:
        db.execute(
            _RELEASE_SQL,
            {
                **ACTION_STATUS_PARAMS,
                "id": str(action_id),
                "token": token,
                "status": str(status),
                "reached": outcome.reached,
                "done": outcome.done,
                "skipped": outcome.skipped,
                "errors": outcome.errors,
                "error_sample": json.dumps(list(outcome.error_sample)),
                "error": error,
                "attempts": 1 if failed_chunk else None,
                "wait": wait,
                "nudged": nudged,
            },
        )
        return db.rowcount == 1


def action_chunks_enqueue_on_commit(nudges: list[ActionNudge]) -> None:
    """Publish the chunk tasks of `nudges` once the current transaction commits."""
    if nudges:
        transaction.on_commit(lambda: _chunks_publish(nudges))


def _chunks_publish(nudges: list[ActionNudge]) -> None:
    """Publish now, by task name (triggers does not import workers)."""
    nudges_publish(
        ACTION_CHUNK_TASK,
        nudges,
        arg=lambda nudge: str(nudge.action_id),
        direct=settings.NOTIFLOW_DIRECT_PUBLISH,
        sweep="the bulk actions' sweep",
    )


def _nudge(row: Swept) -> ActionNudge:
    action_id, countdown, _, _ = row
    return ActionNudge(action_id, countdown)


ACTIONS: LeasedWork[ActionNudge] = LeasedWork(
    name="bulk action",
    table=TriggerAction._meta.db_table,
    sweep_due_sql=statement_load(__file__, "actions_sweep_due"),
    sweep_expired_sql=statement_load(__file__, "actions_sweep_expired"),
    params=ACTION_STATUS_PARAMS,
    queues=lambda: [str(settings.CELERY_TASK_DEFAULT_QUEUE)],
    nudge=_nudge,
    enqueue_on_commit=action_chunks_enqueue_on_commit,
)
