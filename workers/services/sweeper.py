"""The sweeper (docs/design.md, rules 1 and 5): PostgreSQL decides what is due; the broker only nudges."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection, transaction

from triggers.dispatch import Nudge, nudges_waiting, triggers_enqueue_on_commit
from triggers.sql import STATUS_PARAMS, SWEEP_DUE_SQL, SWEEP_EXPIRED_SQL
from workflows.models import Workflow

MAX_BATCHES_PER_SWEEP = 20


def sweep_params(*, renudge_lost: bool) -> dict[str, Any]:
    """The parameters of the sweeper's statements under the current settings."""
    return {
        **STATUS_PARAMS,
        "lookahead": settings.NOTIFLOW_SWEEP_INTERVAL_SECONDS,
        "renudge": settings.NOTIFLOW_RENUDGE_AFTER_SECONDS,
        "batch": settings.NOTIFLOW_SWEEP_BATCH_SIZE,
        "renudge_lost": renudge_lost,
    }


def sweep() -> list[list[Nudge]]:
    """Nudge every trigger that is due or whose lease expired; return the batches of nudges it
    published, each to its workflow's queue at its priority (docs/design.md, rule 11).

    Works in batches of NOTIFLOW_SWEEP_BATCH_SIZE, most urgent first and then oldest, each batch in its own
    transaction with its nudges published after commit. Looks ahead one sweep interval and sets
    a countdown, so a long delay fires on time rather than up to one interval late.

    A nudge older than NOTIFLOW_RENUDGE_AFTER_SECONDS whose trigger is still unclaimed is presumed
    lost and sent again, except while more than a batch of messages waits in the broker queue:
    then it is most likely waiting in that line, and sending it again would only lengthen the
    line for everyone (under a backlog longer than the re-nudge interval, every sweep re-sent
    every queued trigger). Lost nudges are re-sent once the line is short. Expired leases and
    first nudges are sent whatever the queue. The line is all the workflows' queues together.
    """
    waiting = nudges_waiting(Workflow.objects.values_list("queue", flat=True).distinct())
    params = sweep_params(
        renudge_lost=waiting is None or waiting <= settings.NOTIFLOW_SWEEP_BATCH_SIZE
    )
    batches: list[list[Nudge]] = []
    for sql in (SWEEP_EXPIRED_SQL, SWEEP_DUE_SQL):
        for _ in range(MAX_BATCHES_PER_SWEEP):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(sql, params)
                batch = [
                    Nudge(trigger_id, queue, priority, countdown)
                    for trigger_id, countdown, queue, priority in cursor.fetchall()
                ]
                batch.sort(key=lambda nudge: -nudge.priority)  # RETURNING keeps no order
                triggers_enqueue_on_commit(batch)
            if batch:
                batches.append(batch)
            if len(batch) < params["batch"]:
                break
    return batches
