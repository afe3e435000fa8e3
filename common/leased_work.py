"""The leased-work primitive (docs/design/rules.md, rules 1 and 3;
docs/design/leased-work.md; issue 32 §3): the one
job-table discipline of every kind of work a worker takes under a lease, a run's step
(`trigger_instance`), a webhook delivery (`webhook_delivery`), a fan-out's chunk
(`recipient_fanout`), an event wait's timeout (`event_wait`) and a bulk action's chunk
(`trigger_action`), in the manner of River's and Procrastinate's job tables.

A unit of work is a row that PostgreSQL holds the truth of; the broker only carries nudges (its
id) and losing one loses nothing. The row is either *waiting*, due at `available_at`, or *leased*
to one worker until `lease_until` under the token `leased_by`. The rules, for every kind:

- **claim**: one statement takes the row if it is due and free (never leased, or its lease
  expired: `notiflow_lease_expired_v1`), sets the lease on the database's clock
  (statement_timestamp() + NOTIFLOW_LEASE_SECONDS) and clears `nudged_at`; a row held under a
  live lease is skipped, never waited for;
- **release**: one statement writes the outcome only while the row still carries the worker's
  token (fenced), and with it the next due time, statement_timestamp() + the wait the worker
  passes;
- **nudge** (`nudge_schedule`): a row due within NOTIFLOW_MAX_COUNTDOWN_SECONDS is nudged on
  commit with that countdown; a longer wait is left to the sweeper, which looks one interval
  ahead;
- **sweep** (`work_sweep`): expired leases first, then due rows never nudged, or nudged more than
  NOTIFLOW_RENUDGE_AFTER_SECONDS ago and still waiting (their nudge presumed lost); most urgent
  first, in batches of NOTIFLOW_SWEEP_BATCH_SIZE taken FOR UPDATE SKIP LOCKED (two sweepers share
  the work without doubling it), each committed before its nudges go;
- **back-pressure**: a lost nudge is re-sent only while at most a batch of messages waits in the
  kind's queues. Under a longer line the nudge is most likely in it, and sending it again only
  lengthens the line for everyone (a chaos run met exactly that: every sweep re-sent every
  waiting delivery, and the flood starved the steps sharing the queue). First nudges and expired
  leases go whatever the line.

Each kind declares itself once, as a `LeasedWork`: its two sweep statements, written whole in
its app's `statements/<kind>_sweep_due.sql` and `<kind>_sweep_expired.sql` (common/statements.py;
nothing is filled into them: tests/test_leased_work.py holds each kind to the discipline above,
tests/snapshots/ show each as PostgreSQL receives it), the statuses they take as parameters,
where its nudges go and how they are published. The claim and the release are the kind's own
statements: a database function per kind for the run (`notiflow_claim_v2`,
`notiflow_release_v2`, triggers/) and the delivery (events migration 0004), statement files for
a fan-out's chunk (triggers/fanout_work.py), a wait's timeout (waits/work.py) and a bulk action's
chunk (triggers/action_work.py). Each kind has its own beat entry (settings
CELERY_BEAT_SCHEDULE), so a slow kind never delays another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import connection, transaction

from common.broker import nudges_waiting

MAX_BATCHES_PER_SWEEP = 20

# One swept row: (id, countdown in seconds on the database's clock, queue, priority).
Swept = tuple[Any, float, "str | None", "int | None"]
NudgeT = TypeVar("NudgeT")


@dataclass(frozen=True)
class LeasedWork(Generic[NudgeT]):
    """One kind of leased work, declared once. Its statements take the parameters `lookahead`,
    `renudge`, `renudge_lost` and `batch` (sweep_params) and the statuses in `params`; each
    returns Swept rows."""

    name: str
    table: str
    sweep_due_sql: str  # due and never nudged, or its nudge presumed lost
    sweep_expired_sql: str  # leased, the lease expired
    params: Mapping[str, Any]  # the statuses the statements name
    queues: Callable[[], Iterable[str]]  # where its nudges wait (the back-pressure's line)
    nudge: Callable[[Swept], NudgeT]  # a swept row as the kind's nudge
    enqueue_on_commit: Callable[[list[NudgeT]], None]  # publish nudges after commit


def nudge_schedule(wait_seconds: float) -> tuple[bool, float | None]:
    """Whether work due in `wait_seconds` is nudged on commit, and with which countdown (None:
    at once), or left to the sweeper (False): the one statement of that policy."""
    if wait_seconds <= 0:
        return True, None
    if wait_seconds <= settings.NOTIFLOW_MAX_COUNTDOWN_SECONDS:
        return True, wait_seconds
    return False, None


def renudge_lost(waiting: int | None, batch: int) -> bool:
    """The back-pressure rule: whether lost nudges are sent again while `waiting` messages wait
    in the kind's queues (None: the broker cannot say, and a lost nudge must not stay lost)."""
    return waiting is None or waiting <= batch


def sweep_params(
    work: LeasedWork[Any], *, renudge_lost: bool, batch: int | None = None
) -> dict[str, Any]:
    """The parameters of `work`'s sweep statements under the current settings."""
    return {
        **work.params,
        "lookahead": settings.NOTIFLOW_SWEEP_INTERVAL_SECONDS,
        "renudge": settings.NOTIFLOW_RENUDGE_AFTER_SECONDS,
        "batch": batch or settings.NOTIFLOW_SWEEP_BATCH_SIZE,
        "renudge_lost": renudge_lost,
    }


def work_sweep(work: LeasedWork[NudgeT], *, batch: int | None = None) -> list[list[NudgeT]]:
    """Nudge every unit of `work` whose lease expired, then every one due (see the module):
    the batches of nudges published, each after its transaction commits, most urgent first.
    At most MAX_BATCHES_PER_SWEEP batches of each: the next sweep goes on."""
    size = batch or settings.NOTIFLOW_SWEEP_BATCH_SIZE
    params = sweep_params(
        work, renudge_lost=renudge_lost(nudges_waiting(work.queues()), size), batch=size
    )
    batches: list[list[NudgeT]] = []
    for sql in (work.sweep_expired_sql, work.sweep_due_sql):
        for _ in range(MAX_BATCHES_PER_SWEEP):
            found = _sweep_batch(work, sql, params)
            if found:
                batches.append(found)
            if len(found) < size:
                break
    return batches


def _sweep_batch(work: LeasedWork[NudgeT], sql: str, params: dict[str, Any]) -> list[NudgeT]:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows: Sequence[Swept] = cursor.fetchall()
        # RETURNING keeps no order: the most urgent are published first.
        nudges = [work.nudge(row) for row in sorted(rows, key=lambda row: -(row[3] or 0))]
        work.enqueue_on_commit(nudges)
    return nudges
