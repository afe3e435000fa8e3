"""What a step tells the metrics (common/metrics.py): its outcome's label, its duration, how
late it was claimed, and how its provider call went. Nothing here touches the database."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING

from common.metrics import metrics_on, provider_call_observe, step_observe
from triggers.models import TriggerStatus
from workers.channels.base import FOLLOW_AGAIN, NodeRun
from workers.errors import PermanentError, RateLimited
from workers.providers import Provider, provider_for_attempt

if TYPE_CHECKING:
    from workers.services.step import Outcome, StepAttempt

FINISHED = (TriggerStatus.COMPLETED, TriggerStatus.FAILED)


def step_outcome_label(outcome: Outcome, run: NodeRun | None) -> str:
    """done, skipped, waits (a wait node holding the run), retry (a failure to be retried),
    failed (the run fails), put_back (a provider's rate limit: no attempt)."""
    if outcome.put_back:
        return "put_back"
    if outcome.error:
        return "failed" if outcome.status == TriggerStatus.FAILED else "retry"
    if run is not None and run.follow == FOLLOW_AGAIN:
        return "waits"
    if run is not None and run.skipped:
        return "skipped"
    return "done"


def step_recorded(step: StepAttempt, outcome: Outcome, run: NodeRun | None) -> None:
    """A step whose outcome the release wrote."""
    if not metrics_on():
        return
    step_observe(
        workflow=step.workflow.workflow_key,
        node_type=str(step.node.get("type", "unknown")),
        outcome=step_outcome_label(outcome, run),
        seconds=time.monotonic() - step.clock.monotonic_at,
        finished=outcome.status if outcome.status in FINISHED else None,
    )


def provider_call_outcome(exc: BaseException | None) -> str:
    if exc is None:
        return "sent"
    if isinstance(exc, RateLimited):
        return "rate_limited"
    return "permanent" if isinstance(exc, PermanentError) else "transient"


def provider_call_metered(
    *, channel: str, provider: Provider, named: str, attempts: int
) -> AbstractContextManager[None]:
    """Around a provider call: its outcome (from what it raised) and duration, and whether it
    went elsewhere than the node's first provider (a failover: attempt `attempts` of a node
    naming `named`, worked out only when metrics are on). Off, it returns one shared
    do-nothing context: nothing is made per call."""
    if not metrics_on():
        return _UNMETERED
    return _provider_call_metered(
        channel=channel, provider=provider, named=named, attempts=attempts
    )


_UNMETERED = nullcontext()


@contextmanager
def _provider_call_metered(
    *, channel: str, provider: Provider, named: str, attempts: int
) -> Iterator[None]:
    started = time.monotonic()
    failed: BaseException | None = None
    try:
        yield
    except BaseException as exc:
        failed = exc
        raise
    finally:
        provider_call_observe(
            channel=channel,
            provider=provider.name,
            outcome=provider_call_outcome(failed),
            seconds=time.monotonic() - started,
            failover=attempts > 0
            and provider != provider_for_attempt(channel, named=named, attempts=0),
        )
