"""Deliveries' beat task: the funnel's sweep (settings CELERY_BEAT_SCHEDULE, docs/funnel.md)."""

from __future__ import annotations

import logging

from celery import shared_task

from deliveries.funnel import funnel_sweep as steps_roll_up

logger = logging.getLogger(__name__)


# No task events, as the other sweeps (workers/tasks.py): they would fill Flower's task list.
@shared_task(name="deliveries.funnel_sweep", ignore_result=True, send_events=False)
def funnel_sweep() -> int:
    """Count the step logs written since the last sweep into the funnel's rollup, up to the
    oldest transaction still open (run by celery beat every sweep interval)."""
    counted = steps_roll_up()
    # DEBUG, not INFO as a re-nudge: counting is what it does every sweep while runs send.
    logger.debug("funnel sweep counted %d step(s)", counted)
    return counted
