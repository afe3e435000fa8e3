"""A provider that never answers, on the send-heavy layout (a threads worker: the Procfile's
`sends`; docs/operations/processes.md, "Workers over a slow provider"): Celery enforces no time
limit there, so each provider call's own deadline is what stops the step. The SMTP relay that
accepts the connection and says nothing, and the ESP (anymail's Postmark backend) that takes the
request and never answers, each give up after EMAIL_TIMEOUT: the attempt is a transient failure
that fails over to the next provider, well before the soft time limit, and the worker process
(with its other threads) lives on."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import pytest

from tests.conftest import STACK_SETTINGS, unique
from tests.factories import WorkflowFactory, chain, email_node
from tests.support.smtp import SmtpServer
from tests.support.stack import Stack, wait_for
from tests.workers.helpers import fire, wait_terminal
from workers.models import SendLedger, StepExecutionLog

pytestmark = pytest.mark.e2e

EMAIL_TIMEOUT = float(STACK_SETTINGS["EMAIL_TIMEOUT"])
SOFT_LIMIT = float(STACK_SETTINGS["CELERY_TASK_SOFT_TIME_LIMIT"])


class Silent:
    """Accepts connections and holds them open without reading or writing a byte."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed
                return
            self.held.append(connection)

    def close(self) -> None:
        self.listener.close()
        for connection in self.held:
            connection.close()


@pytest.fixture(scope="module")
def silent() -> Iterator[Silent]:
    server = Silent()
    yield server
    server.close()


@pytest.fixture(scope="module")
def backup() -> Iterator[SmtpServer]:
    server = SmtpServer()
    server.start()
    yield server
    server.stop()


def threads_worker(stack: Stack, api, queue: str, env: dict[str, str]):
    """One worker of the test's own, `--pool threads`, serving `queue` only, once it is live."""
    process = stack.worker(queue, concurrency=4, queues=[queue], extra_env=env, pool="threads")

    def live() -> bool:
        workers = api.get("/api/workers/?live=true").json()["results"]
        return any(w["queues"] == [queue] for w in workers)

    wait_for(live, timeout=60, interval=0.2, message=f"a threads worker on {queue}")
    return process


@pytest.mark.parametrize("stuck", ["smtp", "postmark"])
def test_a_provider_that_never_answers_is_given_up_within_its_deadline(
    e2e, api, silent, backup, stuck
):
    queue = unique("stuck")
    stuck_options = (
        {"host": "127.0.0.1", "port": silent.port}
        if stuck == "smtp"
        else {"server_token": "t", "api_url": f"http://127.0.0.1:{silent.port}/"}
    )
    env = {
        "NOTIFLOW_EMAIL_PROVIDERS": "stuck,backup",
        "NOTIFLOW_PROVIDER_STUCK_BACKEND": stuck,
        "NOTIFLOW_PROVIDER_STUCK_OPTIONS": json.dumps(stuck_options),
        "NOTIFLOW_PROVIDER_BACKUP_BACKEND": "smtp",
        "NOTIFLOW_PROVIDER_BACKUP_OPTIONS": json.dumps({"host": "127.0.0.1", "port": backup.port}),
    }
    worker = threads_worker(e2e, api, queue, env)
    try:
        workflow = WorkflowFactory(key=f"{queue}.welcome", definition=chain(email_node("mail")))
        address = f"ok-{unique('r')}@example.com"

        trigger = wait_terminal(fire(api, workflow, {"email": address, "name": "Ada"}))

        assert trigger.status == "completed", trigger.last_error
        assert len(backup.handler.to(address)) == 1
        gave_up, sent = StepExecutionLog.objects.filter(trigger=trigger).order_by("attempt")
        assert gave_up.error.startswith("stuck: ") and "timed out" in gave_up.error.lower(), (
            gave_up.error
        )
        took = (gave_up.finished_at - gave_up.started_at).total_seconds()
        # Its own deadline, not the soft time limit, nor the hard one (which ends the worker).
        assert EMAIL_TIMEOUT * 0.9 <= took < SOFT_LIMIT, took
        assert sent.success and sent.output["provider"] == "backup"
        assert SendLedger.objects.get(trigger=trigger).providers == ["stuck", "backup"]
        assert worker.popen.poll() is None, worker.log()[-3000:]
        assert "past CELERY_TASK_TIME_LIMIT" not in worker.log()
    finally:
        worker.stop()
