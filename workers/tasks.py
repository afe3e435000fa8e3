"""Celery tasks: thin, named, id-only. All logic lives in workers.services."""

from __future__ import annotations

import logging
import os
import socket

from celery import Task, shared_task
from django.conf import settings

from triggers.fanout import FanoutPaused, fanout_chunk, fanout_error_note, fanouts_resume
from waits.services import waits_time_out
from workers.services.engine import steps_execute
from workers.services.flow import flow_state_prune
from workers.services.sweeper import sweep as sweep_due

logger = logging.getLogger(__name__)


def worker_id() -> str:
    # Computed per call: prefork children each have their own pid.
    return f"{socket.gethostname()}:{os.getpid()}"


@shared_task(name="workers.execute_node", ignore_result=True, bind=True)
def execute_node(self: Task, trigger_id: str) -> str | None:
    """Run the current node of a trigger (and, with NOTIFLOW_STEPS_PER_TASK above 1, the next
    ones due at once). A trigger that is missing, not due or owned by another worker is left
    alone: the claim returns nothing and so does this task."""
    queue = (self.request.delivery_info or {}).get("routing_key")
    return steps_execute(trigger_id=trigger_id, worker_id=worker_id(), queue=queue)


# No task events: every few seconds, they filled Flower's task list (which cannot hide a task by
# name) with sweeps. A sweep that did something logs it; one that failed is logged by Celery.
@shared_task(name="workers.sweep", ignore_result=True, send_events=False)
def sweep() -> int:
    """Time out event waits past their deadline, re-nudge due triggers and expired leases, resume fan-outs whose task was lost, and prune the throttle and digest state past
    its use (run by celery beat every few seconds)."""
    timed_out = waits_time_out(batch=settings.NOTIFLOW_SWEEP_BATCH_SIZE)
    if timed_out:
        logger.info("sweeper resumed %d waiting run(s) whose wait timed out", timed_out)
    nudged = sum(len(batch) for batch in sweep_due())
    if nudged:
        logger.info("sweeper nudged %d trigger(s)", nudged)
    resumed = fanouts_resume()
    if resumed:
        logger.info("sweeper resumed %d fan-out(s)", resumed)
    passes, digests, _ = flow_state_prune()
    if passes or digests:
        logger.info("sweeper pruned %d throttle pass(es), %d digest(s)", passes, digests)
    return nudged


@shared_task(name="workers.fanout_chunk", ignore_result=True)
def fanout_chunk_run(fanout_id: str, cursor: int) -> int | None:
    """Create the runs of a fan-out's next chunk (triggers.fanout): nothing when another task
    did that chunk already. A chunk refused for want of a live worker, or that failed, is
    rolled back, noted in the fan-out's `last_error`, and resumed by the sweeper."""
    try:
        return fanout_chunk(fanout_id=fanout_id, cursor=cursor)
    except FanoutPaused as exc:
        logger.warning("fan-out %s paused: %s", fanout_id, exc)
        fanout_error_note(fanout_id=fanout_id, message=f"paused: {exc}")
        return None
    except Exception as exc:
        # Rolled back; the sweeper resumes it. Said where the operator looks, then raised for
        # Celery's log.
        fanout_error_note(fanout_id=fanout_id, message=f"chunk failed: {exc!r}")
        raise
