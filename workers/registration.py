"""A worker's own row in the registry (registry/): a Celery consumer bootstep.

Added to the consumer's blueprint in notiflow/celery.py. Once the task consumer has started
(`requires` Tasks), the worker registers itself (its name, the queues it consumes from, its
concurrency, the node types and providers it can run, its code version), then beats every
NOTIFLOW_WORKER_HEARTBEAT_SECONDS on the consumer's timer. When the broker connection is lost,
Celery restarts the consumer's steps: the beats stop with the consumer (a worker that cannot
take messages is not live) and resume, registering again, when it is back. On a shutdown the
blueprint closes its steps first: the row is marked stopped while the pool finishes its steps.

The database is used from the worker's main process, on the event loop's thread (the timer is
the loop's with a Redis or AMQP broker). Pool processes forked later (a replaced child) inherit
that connection's socket; Celery's Django fixup closes it in each child at worker_process_init
without a word on the wire, so no child ever talks on the main process's connection. A
database that does not answer is logged, its connection dropped, and tried again at the next
beat: the worker never stops for it (docs/operations/index.md, "The worker registry").
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from importlib import metadata
from typing import Any

from celery import bootsteps
from django.conf import settings
from django.db import close_old_connections, connection

from registry.services import worker_heartbeat, worker_register, worker_stop
from workers.channels import worker_capabilities

logger = logging.getLogger(__name__)


def code_version() -> str:
    """NOTIFLOW_VERSION when set (a build stamps its commit there), else the installed package's
    version."""
    if settings.NOTIFLOW_VERSION:
        return str(settings.NOTIFLOW_VERSION)
    try:
        return metadata.version("notiflow")
    except metadata.PackageNotFoundError:
        return "unknown"


def consumed_queues(c: Any) -> list[str]:
    """The queues the task consumer reads: -Q's, or CELERY_TASK_DEFAULT_QUEUE without it, plus
    any added since with `celery control add_consumer`."""
    return sorted({queue.name for queue in c.task_consumer.queues})


def concurrency_of(c: Any) -> int:
    controller = c.controller
    if controller is not None:
        return int(getattr(controller, "max_concurrency", None) or controller.concurrency)
    return int(c.pool.num_processes)


class WorkerRegistration(bootsteps.StartStopStep):
    """Register once the task consumer runs, beat on the consumer's timer, mark stopped on
    shutdown."""

    label = "Registry"
    requires = ("celery.worker.consumer.tasks:Tasks",)

    def __init__(self, c: Any, **kwargs: Any) -> None:
        self.tref: Any = None
        self.registered = False
        super().__init__(c, **kwargs)

    def start(self, c: Any) -> None:
        self.registered = False
        self.beat(c)
        self.tref = c.timer.call_repeatedly(
            settings.NOTIFLOW_WORKER_HEARTBEAT_SECONDS, self.beat, (c,)
        )

    def stop(self, c: Any) -> None:
        """The consumer stops: on a shutdown, and on every broker reconnection (start follows)."""
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None

    shutdown = stop

    def close(self, c: Any) -> None:
        """Only the worker's shutdown closes the consumer's blueprint (warm or cold)."""
        if not self.registered:
            return
        try:
            if worker_stop(name=c.hostname):
                logger.info("registry: %s marked stopped", c.hostname)
        except Exception as exc:
            logger.warning("registry: could not mark %s stopped: %s", c.hostname, exc)
            self._drop_connection()

    def beat(self, c: Any) -> None:
        """Register (again) or refresh the heartbeat; never raises."""
        close_old_connections()  # as a request would: a connection past its age or broken
        try:
            queues = consumed_queues(c)
            if self.registered and worker_heartbeat(name=c.hostname, queues=queues):
                return
            capabilities = worker_capabilities()
            worker_register(
                name=c.hostname,
                host=socket.gethostname(),
                pid=os.getpid(),
                queues=queues,
                concurrency=concurrency_of(c),
                node_types=capabilities.node_types,
                providers=capabilities.providers,
                version=code_version(),
            )
        except Exception as exc:
            logger.warning(
                "registry: %s could not %s (trying again in %ss): %s: %s",
                c.hostname,
                "beat" if self.registered else "register",
                settings.NOTIFLOW_WORKER_HEARTBEAT_SECONDS,
                type(exc).__name__,
                exc,
            )
            self._drop_connection()
            return
        logger.info(
            "registry: %s registered%s, serving %s",
            c.hostname,
            " again" if self.registered else "",
            ", ".join(queues),
        )
        self.registered = True

    @staticmethod
    def _drop_connection() -> None:
        """Forget a connection that failed, so the next beat opens a new one."""
        with contextlib.suppress(Exception):
            connection.close()
