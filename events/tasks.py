"""Celery tasks of the webhook dispatcher: thin, named, id-only. The logic is in
events.services.dispatcher."""

from __future__ import annotations

import logging
import os
import socket

from celery import shared_task

from events.services.dispatcher import deliveries_sweep, delivery_send

logger = logging.getLogger(__name__)


@shared_task(name="events.deliver", ignore_result=True)
def deliver(delivery_id: int) -> str | None:
    """POST one delivery if it is due; one that is not (delivered, leased, disabled) is left."""
    if not isinstance(delivery_id, int):
        logger.warning("events.deliver: %r is not a delivery id; dropped", delivery_id)
        return None
    return delivery_send(delivery_id, worker_id=f"{socket.gethostname()}:{os.getpid()}")


# No task events: every few seconds, they filled Flower's task list (which cannot hide a task by
# name) with sweeps. A sweep that did something logs it; one that failed is logged by Celery.
@shared_task(name="events.sweep", ignore_result=True, send_events=False)
def sweep() -> int:
    """Re-nudge due deliveries (run by celery beat every sweep interval)."""
    nudged = deliveries_sweep()
    if nudged:
        logger.info("webhook sweeper nudged %d deliver(y|ies)", nudged)
    return nudged
