"""Reads of the registry: which workers there are, which are live, and which queues they serve.

Live means not stopped and seen within three heartbeats, by the database's clock: the same test
as the database function notiflow_queue_served_v1 (registry migration 0002), which intake runs
inside its statement (tests/registry/test_registry.py holds the two equal).
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from django.conf import settings
from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet
from django.db.models.functions import Now

from registry.models import Worker
from registry.sql import live_within_seconds
from workflows.models import Workflow


def worker_live_q() -> Q:
    """The ORM's spelling of notiflow_queue_served_v1's liveness."""
    return Q(
        stopped_at__isnull=True,
        last_seen_at__gt=Now() - timedelta(seconds=live_within_seconds()),
    )


def worker_list(*, live: bool | None = None) -> QuerySet[Worker]:
    """Every registered worker annotated with `live`; live ones first, then by name. `live`
    True or False keeps only those."""
    workers = Worker.objects.annotate(
        live=ExpressionWrapper(worker_live_q(), output_field=BooleanField())
    )
    if live is not None:
        workers = workers.filter(live=live)
    return workers.order_by("-live", "name")


def live_workers_by_queue() -> dict[str, int]:
    """How many live workers consume from each queue (a queue nobody serves is absent)."""
    counts: Counter[str] = Counter()
    for queues in Worker.objects.filter(worker_live_q()).values_list("queues", flat=True):
        counts.update(set(queues))
    return dict(sorted(counts.items()))


def queue_unserved_list(*, served: dict[str, int] | None = None) -> list[str]:
    """The queues of active workflows that no live worker serves: triggers for them are refused
    (503) while NOTIFLOW_TRIGGER_REQUIRES_WORKER is on, and would wait otherwise. `served` is
    live_workers_by_queue() when the caller has it already."""
    served = live_workers_by_queue() if served is None else served
    queues = (
        Workflow.objects.filter(active=True).values_list("queue", flat=True).order_by().distinct()
    )
    return sorted(set(queues) - set(served))


def worker_command(queue: str) -> str:
    """The command that starts a worker serving `queue`, as docs/guide/execution.md recommends it: its own
    node name (`-n <queue>@%h`), so it can run beside the host's other workers."""
    return f"celery -A notiflow worker -Q {queue} -n {queue}@%h"


def queue_unserved_warnings(workflow: Workflow) -> list[str]:
    """The warning on saving an active workflow whose queue no live worker serves
    (workflows.hooks.SAVE_WARNING_HOOKS): its triggers are refused until one does (503, while
    NOTIFLOW_TRIGGER_REQUIRES_WORKER is on), or wait."""
    served = Worker.objects.filter(worker_live_q(), queues__contains=[workflow.queue])
    if not workflow.active or served.exists():
        return []
    outcome = (
        "its triggers are refused (503) until one does"
        if settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER
        else "its runs wait until one does"
    )
    return [
        f"no live worker serves queue {workflow.queue!r}: {outcome}; start one with: "
        + worker_command(workflow.queue)
    ]
