import os
import signal
from functools import cached_property
from typing import Any

from celery import Celery, beat
from celery.apps.beat import Beat
from celery.signals import (
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_init,
    worker_process_shutdown,
    worker_shutdown,
)
from django.db import close_old_connections

from common.db import connection_reuse_begin, connection_reuse_end

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")


class GracefulBeat(Beat):
    """Beat whose SIGTERM/SIGINT handler never touches the database.

    Celery's handler saves the schedule inside the signal handler. With the database scheduler
    that query runs on the connection the interrupted code is using: during normal ticks it fails
    ("the connection is closed") and beat carries on running; during start-up, while the
    scheduler is still being built, it builds a second one and waits forever for the connection
    the first holds. Here the handler only asks the service loop to stop; the loop finishes its
    tick and saves the schedule on its way out. Beat sleeps at most its max interval (5 s)
    between ticks, so it stops within that. Stopped before it finished starting, there is nothing
    to save and it exits at once.
    """

    def install_sync_handler(self, service: beat.Service) -> None:
        def stop(_signum: int, _frame: Any) -> None:
            if "scheduler" not in vars(service):
                raise SystemExit(0)
            service._is_shutdown.set()  # type: ignore[attr-defined]

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)


class NotiflowCelery(Celery):
    @cached_property
    def Beat(self) -> Any:
        return self.subclass_with_self(GracefulBeat)


app = NotiflowCelery("notiflow")
# Every Celery setting lives in Django settings, prefixed CELERY_ (one commented block there).
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Each worker registers itself, beats and says when it stops (workers/registration.py). By name:
# the step's module imports Django models, which must wait until the worker has set Django up.
app.steps["consumer"].add("workers.registration:WorkerRegistration")


@worker_init.connect
def _metrics_start(sender: Any = None, **_kwargs: object) -> None:
    """Metrics (common/metrics.py): the worker's main process cleans its group's directory
    (`worker-<node name>` under NOTIFLOW_METRICS_DIR) before it starts its pool, and every
    prefork child records there; `GET /metrics` on the web process reads them all."""
    from common.metrics import metrics_process_start

    metrics_process_start(f"worker-{getattr(sender, 'hostname', '') or os.getpid()}")


@worker_init.connect
def _compiled_before_the_pool_forks(**_kwargs: object) -> None:
    """What every pool process would compile on its first email step, compiled once in the main
    process before it forks them (workflows.nodes.email.email_check_warm)."""
    from workflows.nodes.email import email_check_warm

    email_check_warm()


@worker_process_init.connect
def _pool_process_leaves_sigterm_to_the_main_process(**_kwargs: object) -> None:
    """SIGTERM means "finish the current step, then stop" (Celery's warm shutdown).

    Celery resets SIGTERM to its default in pool processes, so a SIGTERM sent to the whole process
    group — honcho, `kill -- -PGID`, an init that signals the group — would kill a pool process in
    the middle of a step, leaving the trigger to wait for its lease to expire. The main process
    gets the same signal and shuts down warmly: it stops taking messages and waits for the running
    steps. A hard time limit still stops a stuck step (billiard follows its SIGTERM with SIGKILL).
    """
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


@worker_init.connect
def _time_limits_where_celery_enforces_none(sender: Any = None, **_kwargs: object) -> None:
    """Under the threads or solo pool, the project's own watchdog enforces the task time limits
    (notiflow/timelimits.py): Celery does so under prefork only."""
    from notiflow import timelimits

    if sender is None or timelimits.pool_enforces_limits(getattr(sender, "pool_cls", "")):
        return
    from django.conf import settings

    timelimits.watchdog = timelimits.Watchdog(
        settings.CELERY_TASK_SOFT_TIME_LIMIT, settings.CELERY_TASK_TIME_LIMIT
    )
    timelimits.watchdog.start()


@worker_process_shutdown.connect
@worker_shutdown.connect
def _provider_connections_close(**_kwargs: object) -> None:
    """Say goodbye (QUIT) on the email providers' kept connections as a pool process or a solo
    or threads worker stops (workers/providers/connections.py)."""
    from workers.providers.connections import connections_close_all

    connections_close_all()


@task_prerun.connect
def before_task(sender: Any = None, **kwargs: Any) -> None:
    """What Django does before a request, before a task: drop a connection that failed or outlived
    CONN_MAX_AGE, and health-check a kept one (CELERY_DB_REUSE_MAX keeps it) unless it was fine
    moments ago (common/db.py). Not for eager tasks, which run inside their caller's
    transaction."""
    if _is_eager(sender):
        return
    from notiflow import timelimits

    if timelimits.watchdog is not None:
        timelimits.watchdog.task_started()
    close_old_connections()
    connection_reuse_begin()


@task_postrun.connect
def after_task(sender: Any = None, **kwargs: Any) -> None:
    """What Django does after a request: drop a connection that failed or is too old."""
    if _is_eager(sender):
        return
    from notiflow import timelimits

    if timelimits.watchdog is not None:
        timelimits.watchdog.task_ended()
    close_old_connections()
    connection_reuse_end()


def _is_eager(task: Any) -> bool:
    return bool(getattr(getattr(task, "request", None), "is_eager", False))
