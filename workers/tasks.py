"""Celery tasks: thin, named, id-only. All logic lives in workers.services."""

from __future__ import annotations

import logging
import os
import socket

from celery import Task, shared_task

from common.leased_work import work_sweep
from schedules.firing import schedule_fire
from schedules.work import SCHEDULES
from triggers.action_work import ACTIONS
from triggers.actions import action_chunk
from triggers.audience_runs import RunsPaused
from triggers.fanout import FanoutPaused, fanout_chunk
from triggers.fanout_work import FANOUTS
from waits.services import wait_time_out
from waits.work import WAITS
from workers.services.engine import steps_execute
from workers.services.flow import flow_state_prune
from workers.services.history import partitions_ensure
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


# One beat entry per sweep (settings CELERY_BEAT_SCHEDULE), so a slow one never delays another.
# No task events: every few seconds, they filled Flower's task list (which cannot hide a task by
# name) with sweeps. A sweep that did something logs it; one that failed is logged by Celery.
@shared_task(name="workers.sweep", ignore_result=True, send_events=False)
def sweep() -> int:
    """Re-nudge due runs and those whose lease expired (run by celery beat every sweep
    interval)."""
    nudged = sum(len(batch) for batch in sweep_due())
    if nudged:
        logger.info("sweeper nudged %d trigger(s)", nudged)
    return nudged


@shared_task(name="workers.fanouts_sweep", ignore_result=True, send_events=False)
def fanouts_sweep() -> int:
    """Send again the chunk task of a fan-out whose worker died (its lease expired) or whose task
    was lost, and that of one due again after a chunk it gave back."""
    nudged = sum(len(batch) for batch in work_sweep(FANOUTS))
    if nudged:
        logger.info("fan-outs' sweeper resumed %d fan-out(s)", nudged)
    return nudged


@shared_task(name="workers.trigger_actions_sweep", ignore_result=True, send_events=False)
def trigger_actions_sweep() -> int:
    """Send again the chunk task of a bulk action whose worker died (its lease expired) or whose
    task was lost, and that of one due again after a chunk that failed."""
    nudged = sum(len(batch) for batch in work_sweep(ACTIONS))
    if nudged:
        logger.info("bulk actions' sweeper resumed %d action(s)", nudged)
    return nudged


@shared_task(name="workers.waits_sweep", ignore_result=True, send_events=False)
def waits_sweep() -> int:
    """Nudge the timeout of every open event wait due (or about to be), and of those whose
    worker died while timing them out."""
    nudged = sum(len(batch) for batch in work_sweep(WAITS))
    if nudged:
        logger.info("waits' sweeper nudged %d wait timeout(s)", nudged)
    return nudged


@shared_task(name="workers.schedules_sweep", ignore_result=True, send_events=False)
def schedules_sweep() -> int:
    """Nudge every schedule whose next step is due (or about to be), and those whose worker
    died in a step: one entry for all the schedules, however many."""
    nudged = sum(len(batch) for batch in work_sweep(SCHEDULES))
    if nudged:
        logger.info("schedules' sweeper nudged %d schedule(s)", nudged)
    return nudged


@shared_task(name="workers.flow_state_prune", ignore_result=True, send_events=False)
def flow_state_prune_run() -> int:
    """Prune the throttle and digest state past its use."""
    passes, digests, _ = flow_state_prune()
    if passes or digests:
        logger.info("sweeper pruned %d throttle pass(es), %d digest(s)", passes, digests)
    return passes + digests


@shared_task(name="workers.step_log_partitions", ignore_result=True, send_events=False)
def step_log_partitions() -> int:
    """Create the history's partitions ahead of time, the step log's and the run events'
    (workers.services.history); the task's name is the one it had when only the step log had
    them, which beat's schedule in the database holds."""
    created = partitions_ensure()
    if created:
        logger.info("created history partition(s) %s", ", ".join(created))
    return len(created)


@shared_task(name="workers.fanout_chunk", ignore_result=True)
def fanout_chunk_run(fanout_id: str, cursor: int | None = None) -> int | None:
    """Create the runs of a fan-out's next chunk under a lease (triggers.fanout): nothing when
    another task holds the fan-out or it is not due. A chunk refused for want of a live worker,
    or that failed, is rolled back and given back with its reason in `last_error`, due again
    later. (`cursor`: what the chunk tasks of the release before leases carried; the lease
    decides now.)"""
    try:
        return fanout_chunk(fanout_id=fanout_id, worker_id=worker_id())
    except FanoutPaused as exc:
        logger.warning("fan-out %s paused: %s", fanout_id, exc)
        return None


@shared_task(name="workers.trigger_action_chunk", ignore_result=True)
def trigger_action_chunk_run(action_id: str) -> int | None:
    """Act on a bulk action's next chunk of runs under a lease (triggers.actions): nothing when
    another task holds the action or it is done. A chunk that failed is rolled back and given
    back with its reason in `last_error`, due again later."""
    return action_chunk(action_id=action_id, worker_id=worker_id())


@shared_task(name="workers.wait_time_out", ignore_result=True)
def wait_time_out_run(wait_id: int) -> str | None:
    """Close one open event wait past its deadline under a lease (waits.services): timed out,
    or received with its message's recorded state, and its run resumed; nothing when another
    worker holds it or it was resolved meanwhile."""
    return wait_time_out(wait_id=wait_id, worker_id=worker_id())


@shared_task(name="workers.schedule_fire", ignore_result=True)
def schedule_fire_run(schedule_id: str) -> int | None:
    """Take a schedule's next step under a lease (schedules.firing): read an occurrence's zones,
    skip one missed past its catch_up, or fire a chunk of its runs; nothing when another task
    holds it or it is not due. A step refused for want of a live worker, or that failed, is
    rolled back and given back with its reason in `last_error`, due again later."""
    try:
        return schedule_fire(schedule_id=schedule_id, worker_id=worker_id())
    except RunsPaused as exc:
        logger.warning("schedule %s paused: %s", schedule_id, exc)
        return None
