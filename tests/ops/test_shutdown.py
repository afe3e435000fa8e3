"""SIGTERM is a graceful stop: a worker finishes the step it is running, beat exits cleanly.

The signal goes to the whole process group, as honcho and `kill -- -PGID` send it: the harder
case, where Celery's pool processes receive it too.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path
from unittest import mock

import pytest
from celery import current_app

from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node
from tests.support.stack import BIN, wait_for
from tests.workers.helpers import wait_terminal
from triggers.models import TriggerInstance
from triggers.services import trigger_create
from workers.models import StepExecutionLog

pytestmark = pytest.mark.e2e


def _parent_pid(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))


def test_worker_sigterm_mid_step_finishes_the_step_then_exits(e2e, smtp_server):
    queue = unique("sigterm")
    name = f"{queue}@{socket.gethostname()}"
    worker = e2e.spawn(
        queue,
        [
            str(BIN / "celery"),
            "-A",
            "notiflow",
            "worker",
            "--loglevel=INFO",
            "-Q",
            queue,
            "--concurrency=1",
            f"--hostname={name}",
            "--without-mingle",
            "--without-gossip",
        ],
    )
    wait_for(
        lambda: current_app.control.ping(destination=[name], timeout=0.5),
        timeout=60,
        message=f"worker {name} to answer",
    )
    address = f"slow-{unique()}@example.com"
    workflow = WorkflowFactory(definition=chain(email_node("mail")))
    # The trigger's nudge goes only to this worker's queue, so no other worker can claim it.
    with mock.patch("triggers.dispatch.triggers_publish"):
        trigger, _ = trigger_create(
            workflow_key=workflow.key,
            idempotency_key=unique("key"),
            payload={"email": address, "name": "Ann"},
        )
    current_app.send_task("workers.execute_node", args=[str(trigger.pk)], queue=queue)

    def running_here() -> bool:
        current = TriggerInstance.objects.get(pk=trigger.pk)
        if current.status != "processing":
            return False
        pid = int(current.leased_by.split(":")[1].split("/")[0])
        return _parent_pid(pid) == worker.popen.pid

    wait_for(running_here, timeout=20, message="the step to start on the worker under test")
    os.killpg(worker.popen.pid, signal.SIGTERM)

    assert worker.popen.wait(timeout=30) == 0, worker.log()[-3000:]
    finished = wait_terminal(str(trigger.pk), timeout=5)
    assert finished.status == "completed", finished.last_error
    (step,) = StepExecutionLog.objects.filter(trigger=trigger)
    assert step.success and step.attempt == 1
    assert len(smtp_server.handler.to(address)) == 1
    assert "Traceback" not in worker.log()


def test_beat_sigterm_exits_cleanly(e2e):
    beat = e2e.spawn(
        unique("beat"), [str(BIN / "celery"), "-A", "notiflow", "beat", "--loglevel=INFO"]
    )
    wait_for(lambda: "beat: Starting" in beat.log(), timeout=60, message="beat to start")
    os.killpg(beat.popen.pid, signal.SIGTERM)

    try:
        code = beat.popen.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail(f"beat still running 20 s after SIGTERM:\n{beat.log()[-3000:]}")
    assert code == 0, beat.log()[-3000:]
    assert "Traceback" not in beat.log()
