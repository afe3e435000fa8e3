"""Writes to the registry: a worker registers, beats, stops (docs/design/registry.md, "The worker registry").

Every write stamps times with the database's clock (Django's `Now()`, PostgreSQL's
statement_timestamp()), never the worker's: liveness is judged by the database's clock too
(registry.sql), so a worker host whose clock is off is
neither live forever nor never live.
"""

from __future__ import annotations

from datetime import timedelta

from django.db.models.functions import Now

from registry.models import Worker


def worker_register(
    *,
    name: str,
    host: str,
    pid: int,
    queues: list[str],
    concurrency: int,
    node_types: list[str],
    providers: dict[str, str],
    version: str,
) -> Worker:
    """Insert the worker called `name`, or overwrite its row: one statement
    (`INSERT … ON CONFLICT (name) DO UPDATE`), so two registrations racing under one name leave
    one row, the last one's. `started_at` and `last_seen_at` become now and `stopped_at` is
    cleared: a restarted worker is live again under its old name. Returns the row as stored."""
    row = Worker(
        name=name,
        host=host,
        pid=pid,
        queues=sorted(set(queues)),
        concurrency=concurrency,
        node_types=sorted(node_types),
        providers=providers,
        version=version,
        started_at=Now(),
        last_seen_at=Now(),
        stopped_at=None,
    )
    updated = [
        field.name for field in Worker._meta.concrete_fields if field.name not in {"id", "name"}
    ]
    Worker.objects.bulk_create(
        [row], update_conflicts=True, unique_fields=["name"], update_fields=updated
    )
    return Worker.objects.get(name=name)


def worker_heartbeat(*, name: str, queues: list[str] | None = None) -> bool:
    """Mark the worker `name` seen now (and, given `queues`, consuming from those: `celery
    control add_consumer` changes them at run time). Returns False when there is no such row that
    is not stopped (deleted, or marked stopped by another process under the same name): the
    caller should register again rather than beat for a row that says it is gone."""
    changes: dict[str, object] = {"last_seen_at": Now()}
    if queues is not None:
        changes["queues"] = sorted(set(queues))
    return bool(Worker.objects.filter(name=name, stopped_at__isnull=True).update(**changes))


def worker_stop(*, name: str) -> bool:
    """Mark the worker `name` stopped now (a clean shutdown: it takes no more messages). Returns
    whether a running row was marked; stopping twice changes nothing the second time."""
    return bool(
        Worker.objects.filter(name=name, stopped_at__isnull=True).update(
            stopped_at=Now(), last_seen_at=Now()
        )
    )


def worker_prune(*, not_seen_for: timedelta, dry_run: bool = False) -> list[str]:
    """Delete the rows of workers not seen for `not_seen_for` (stopped, or gone without a
    word), and return their names; `dry_run` deletes nothing. A live worker is never pruned, and
    one pruned by mistake registers again at its next beat (worker_heartbeat says it is gone).
    The cutoff is the database's clock, as liveness is."""
    stale = Worker.objects.filter(last_seen_at__lt=Now() - not_seen_for)
    names = sorted(stale.values_list("name", flat=True))
    if not dry_run and names:
        stale.filter(name__in=names).delete()
    return names
