"""The one way to hand a trigger to the workers: a nudge published after the transaction commits.

A nudge carries the trigger id and nothing else (docs/design.md, rule 1); losing one loses nothing, because
the sweeper finds every due trigger in PostgreSQL. Publishing by task name keeps `triggers`
independent of `workers`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from functools import lru_cache
from uuid import UUID

from celery import current_app
from django.conf import settings
from django.db import transaction
from kombu.exceptions import ChannelError

from notiflow.broker import TaskMessageWriter

logger = logging.getLogger(__name__)

EXECUTE_NODE_TASK = "workers.execute_node"


def trigger_enqueue_on_commit(trigger_id: UUID | str, *, countdown: float | None = None) -> None:
    """Publish an execute_node nudge for `trigger_id` once the current transaction commits."""
    transaction.on_commit(lambda: triggers_publish([(trigger_id, countdown)]))


def triggers_enqueue_on_commit(nudges: list[tuple[UUID | str, float | None]]) -> None:
    """Publish many nudges (trigger id, countdown) over one producer once the transaction commits."""
    if nudges:
        transaction.on_commit(lambda: triggers_publish(nudges))


def triggers_publish(nudges: Iterable[tuple[UUID | str, float | None]]) -> None:
    """Publish now. A broker failure is logged, not raised: PostgreSQL holds the truth."""
    calls = [
        ([str(trigger_id)], countdown if countdown and countdown > 0 else None)
        for trigger_id, countdown in nudges
    ]
    try:
        writer = _writer(current_app.conf.broker_url, settings.NOTIFLOW_DIRECT_PUBLISH)
        if writer is not None and writer.publish(EXECUTE_NODE_TASK, calls):
            return
        with current_app.producer_or_acquire() as producer:
            for args, countdown in calls:
                current_app.send_task(
                    EXECUTE_NODE_TASK, args=args, countdown=countdown, producer=producer
                )
    except Exception:
        logger.warning("broker unavailable; the sweeper will nudge these triggers", exc_info=True)


@lru_cache(maxsize=4)
def _writer(broker_url: str, enabled: bool) -> TaskMessageWriter | None:
    """The direct message writer for the app's broker (notiflow/broker.py), if switched on and
    exact; made once per broker URL."""
    return TaskMessageWriter.for_app(current_app) if enabled else None


def nudges_waiting(queue: str | None = None) -> int | None:
    """How many messages wait in the workers' queue (`task_default_queue` unless `queue` is
    given), or None when the broker cannot say.

    One round trip (LLEN per priority level on Redis). A queue that does not exist is empty: Redis
    drops a list when its last message is taken.
    """
    queue = queue or current_app.conf.task_default_queue
    try:
        with current_app.connection_for_read() as conn:
            channel = conn.default_channel
            declared = channel.queue_declare(queue=queue, passive=True)  # type: ignore[attr-defined]
            return int(declared.message_count)
    except ChannelError:
        return 0
    except Exception:
        logger.warning("broker unavailable; cannot tell how many nudges wait", exc_info=True)
        return None
