"""The one way to hand a trigger to the workers: a nudge published after the transaction commits.

A nudge carries the trigger id and nothing else (docs/design/rules.md, rule 1); losing one loses nothing, because
the sweeper finds every due trigger in PostgreSQL. It goes to the Celery queue of the trigger's
workflow, at the trigger's priority (rule 11): both travel beside the message, never in it.
Publishing by task name keeps `triggers` independent of `workers`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from uuid import UUID

from django.conf import settings
from django.db import transaction

from common.broker import nudges_publish, nudges_waiting

__all__ = [
    "EXECUTE_NODE_TASK",
    "Nudge",
    "nudges_held",
    "nudges_waiting",
    "trigger_enqueue_on_commit",
    "triggers_enqueue_on_commit",
    "triggers_publish",
]


EXECUTE_NODE_TASK = "workers.execute_node"


@dataclass(frozen=True)
class Nudge:
    """A nudge for one trigger: its workflow's queue, its priority (0-9, higher is more urgent),
    and how many seconds the worker should wait before running it (None: at once)."""

    trigger_id: UUID | str
    queue: str
    priority: int
    countdown: float | None = None


_holding = threading.local()


@contextmanager
def nudges_held() -> Iterator[list[Nudge]]:
    """Within the block, the nudges this thread would publish after a commit are collected in
    the list it yields instead: the caller publishes them, or runs what they nudge itself
    (workers.services.engine.steps_execute). Whatever is collected when the block raises is
    published on the way out, so an error never swallows a nudge."""
    held: list[Nudge] = []
    _holding.held = held
    try:
        yield held
    except BaseException:
        _holding.held = None
        if held:
            triggers_publish(held)
        raise
    finally:
        _holding.held = None


def _publish_or_hold(nudges: list[Nudge]) -> None:
    held = getattr(_holding, "held", None)
    if held is not None:
        held.extend(nudges)
    else:
        triggers_publish(nudges)


def trigger_enqueue_on_commit(nudge: Nudge) -> None:
    """Publish `nudge` once the current transaction commits (or hold it: nudges_held)."""
    transaction.on_commit(lambda: _publish_or_hold([nudge]))


def triggers_enqueue_on_commit(nudges: list[Nudge]) -> None:
    """Publish many nudges in one round trip once the current transaction commits."""
    if nudges:
        transaction.on_commit(lambda: triggers_publish(nudges))


def triggers_publish(nudges: Iterable[Nudge]) -> None:
    """Publish now. A broker failure is logged, not raised: PostgreSQL holds the truth."""
    nudges_publish(
        EXECUTE_NODE_TASK,
        nudges,
        arg=lambda nudge: str(nudge.trigger_id),
        direct=settings.NOTIFLOW_DIRECT_PUBLISH,
        sweep="the sweeper",
    )
