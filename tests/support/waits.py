"""Wait timeouts as the waits' sweep and its timeout tasks make them, in the test's process."""

from __future__ import annotations

from dataclasses import replace

from common.leased_work import work_sweep
from waits.services import RESUMED, wait_time_out
from waits.work import WAITS, TimeoutNudge


def waits_time_out() -> int:
    """Sweep the waits (work_sweep of WAITS, its nudges collected rather than published) and run
    each nudged timeout here, as `workers.wait_time_out` would: how many runs were resumed."""
    nudges: list[TimeoutNudge] = []
    work_sweep(replace(WAITS, enqueue_on_commit=nudges.extend))
    done = [wait_time_out(wait_id=nudge.wait_id, worker_id="test") for nudge in nudges]
    return done.count(RESUMED)
