"""The one way to hand a delivery to the dispatcher: a nudge published after the transaction
commits, carrying the delivery's id and nothing else (docs/design/rules.md, rule 1). Losing one loses
nothing: the sweeper (events.services.dispatcher.deliveries_sweep) finds every due delivery in
PostgreSQL. Published by task name, on NOTIFLOW_WEBHOOK_QUEUE."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import NamedTuple

from celery import current_app
from django.conf import settings
from django.db import transaction

from common.broker import TaskCall, broker_priority, tasks_publish
from workflows.routing import PRIORITY_DEFAULT

logger = logging.getLogger(__name__)

DELIVER_TASK = "events.deliver"


class DeliveryNudge(NamedTuple):
    """A nudge for one delivery, after `countdown` seconds (None: at once)."""

    delivery_id: int
    countdown: float | None = None


def deliveries_enqueue_on_commit(ids: Iterable[int], countdown: float | None = None) -> None:
    """Publish a nudge for each delivery in `ids` once the current transaction commits."""
    ids = list(ids)
    if ids:
        transaction.on_commit(lambda: deliveries_publish(ids, countdown))


def deliveries_nudge_on_commit(nudges: list[DeliveryNudge]) -> None:
    """Publish `nudges` once the current transaction commits: those due at once together, the
    others each with its countdown."""
    at_once = [n.delivery_id for n in nudges if not n.countdown or n.countdown <= 0]
    deliveries_enqueue_on_commit(at_once)
    for nudge in nudges:
        if nudge.countdown and nudge.countdown > 0:
            deliveries_enqueue_on_commit([nudge.delivery_id], nudge.countdown)


def deliveries_publish(ids: Iterable[int], countdown: float | None = None) -> None:
    """Publish now. A broker failure is logged, not raised: PostgreSQL holds the truth."""
    priority = broker_priority(PRIORITY_DEFAULT, broker_url=current_app.conf.broker_url)
    calls = [
        TaskCall(
            args=[delivery_id],
            queue=settings.NOTIFLOW_WEBHOOK_QUEUE,
            priority=priority,
            countdown=countdown if countdown and countdown > 0 else None,
        )
        for delivery_id in ids
    ]
    try:
        tasks_publish(DELIVER_TASK, calls, direct=settings.NOTIFLOW_DIRECT_PUBLISH)
    except Exception:
        logger.warning("broker unavailable; the sweeper will nudge these deliveries", exc_info=True)
