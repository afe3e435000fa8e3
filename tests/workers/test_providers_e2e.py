"""Named providers with real workers (docs/design/channels.md, "Providers"): a transient failure fails over
to the next provider, a permanent one does not; a provider's rate limit is shared by every worker
and a send over it waits for its token without counting as an attempt."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from django.db.models import Max, Min

from tests.conftest import STACK_SETTINGS, unique
from tests.factories import WorkflowFactory, chain, email_node
from tests.ops.metrics_helpers import samples, total
from tests.support.smtp import SmtpServer
from tests.support.stack import Process, Stack, wait_for
from tests.workers.helpers import fire, wait_terminal
from triggers.models import TriggerInstance
from workers.models import SendLedger, StepExecutionLog

pytestmark = pytest.mark.e2e

HOST = socket.gethostname()


def smtp_provider(name: str, server: SmtpServer) -> dict[str, str]:
    prefix = f"NOTIFLOW_PROVIDER_{name.upper()}_"
    return {
        prefix + "BACKEND": "smtp",
        prefix + "OPTIONS": json.dumps({"host": "127.0.0.1", "port": server.port}),
    }


def own_workers(stack: Stack, api: Any, queue: str, count: int, **env: str) -> list[Process]:
    """`count` workers of the test's own serving `queue` only, once they are live."""
    processes = [
        stack.worker(f"{queue}-{n}", concurrency=2, queues=[queue], extra_env=env)
        for n in range(count)
    ]

    def live() -> bool:
        workers = api.get("/api/workers/?live=true").json()["results"]
        return sum(1 for w in workers if w["queues"] == [queue]) >= count

    wait_for(live, timeout=60, interval=0.2, message=f"{count} workers on {queue}")
    return processes


@pytest.fixture(scope="module")
def sinks() -> Iterator[tuple[SmtpServer, SmtpServer]]:
    down, backup = SmtpServer(refuse_with="451 4.3.0 service down"), SmtpServer()
    down.start()
    backup.start()
    yield down, backup
    down.stop()
    backup.stop()


@pytest.fixture
def failover_queue(e2e, api, sinks) -> Iterator[str]:
    down, backup = sinks
    queue = unique("failover")
    env = {
        "NOTIFLOW_EMAIL_PROVIDERS": "primary,backup",
        **smtp_provider("primary", down),
        **smtp_provider("backup", backup),
    }
    processes = own_workers(e2e, api, queue, 1, **env)
    yield queue
    for process in processes:
        process.stop()


def test_a_transient_failure_is_retried_on_the_next_provider(api, failover_queue, sinks):
    down, backup = sinks
    workflow = WorkflowFactory(
        key=f"{failover_queue}.welcome", definition=chain(email_node("mail"))
    )
    address = f"ok-{unique('r')}@example.com"

    trigger = wait_terminal(fire(api, workflow, {"email": address, "name": "Ada"}))

    assert trigger.status == "completed", trigger.last_error
    (received,) = backup.handler.to(address)
    assert down.handler.deliveries[received.message_id] == 1  # tried once on the primary
    ledger = SendLedger.objects.get(trigger=trigger, node_id="mail")
    assert ledger.providers == ["primary", "backup"]
    assert (ledger.provider, ledger.status, ledger.send_count) == ("backup", "sent", 2)
    assert ledger.provider_message_id == received.message_id.strip("<>")
    failed, sent = StepExecutionLog.objects.filter(trigger=trigger).order_by("attempt")
    assert failed.error.startswith("primary: SMTP 451")
    assert sent.success and sent.output["provider"] == "backup"
    # The same message whichever provider sent it.
    assert received.message_id == sent.output["message_id"]
    # The metrics say so too: a transient failure of the primary, a failover to the backup.
    response = requests.get(
        f"{api.base}/metrics",
        headers={"Authorization": f"Bearer {STACK_SETTINGS['NOTIFLOW_METRICS_TOKEN']}"},
        timeout=10,
    )
    parsed = samples(response.text)
    assert total(parsed, "notiflow_provider_failovers_total", provider="backup") >= 1
    assert total(parsed, "notiflow_provider_calls_total", provider="primary", outcome="transient")


def test_a_permanent_failure_does_not_fail_over(api, failover_queue, sinks):
    _, backup = sinks
    workflow = WorkflowFactory(
        key=f"{failover_queue}.welcome", definition=chain(email_node("mail"))
    )
    address = f"reject-{unique('r')}@example.com"  # 550 from the primary

    trigger = wait_terminal(fire(api, workflow, {"email": address, "name": "Ada"}))

    assert trigger.status == "failed"
    assert trigger.last_error.startswith("primary: SMTP 550")
    assert backup.handler.to(address) == []
    ledger = SendLedger.objects.get(trigger=trigger, node_id="mail")
    assert ledger.providers == ["primary"] and ledger.status == "sending"


def test_a_node_may_name_the_provider_it_sends_through_first(api, failover_queue, sinks):
    _, backup = sinks
    node = email_node("mail", provider="backup")
    workflow = WorkflowFactory(key=f"{failover_queue}.named", definition=chain(node))
    address = f"ok-{unique('r')}@example.com"

    trigger = wait_terminal(fire(api, workflow, {"email": address, "name": "Ada"}))

    assert trigger.status == "completed", trigger.last_error
    assert len(backup.handler.to(address)) == 1
    assert SendLedger.objects.get(trigger=trigger).providers == ["backup"]


SENDS, RATE = 200, 20


def test_a_provider_rate_limit_is_shared_by_every_worker_and_costs_no_attempt(
    e2e, api, smtp_server
):
    queue = unique("rated")
    processes = own_workers(e2e, api, queue, 2, NOTIFLOW_PROVIDER_RATE_LIMITS=f"smtp={RATE}/s")
    try:
        workflow = WorkflowFactory(key=f"{queue}.burst", definition=chain(email_node("mail")))
        run = unique("rate")
        items = [
            {
                "workflow": workflow.key,
                "idempotency_key": f"{run}-{n}",
                "payload": {"email": f"ok-{run}-{n}@example.com", "name": "Ada"},
            }
            for n in range(SENDS)
        ]
        response = api.post("/api/triggers/bulk/", {"triggers": items})
        assert response.status_code == 200, response.text
        assert {r["status"] for r in response.json()["results"]} == {201}
        triggers = TriggerInstance.objects.filter(workflow=workflow)

        def finished() -> bool:
            return not triggers.exclude(status__in=["completed", "failed"]).exists()

        wait_for(finished, timeout=40, interval=0.2, message="the rated sends to finish")
    finally:
        for process in processes:
            process.stop()

    assert set(triggers.values_list("status", flat=True)) == {"completed"}
    assert set(triggers.values_list("attempts", flat=True)) == {0}
    ledgers = SendLedger.objects.filter(trigger__workflow=workflow)
    assert ledgers.count() == SENDS and set(ledgers.values_list("send_count", flat=True)) == {1}
    assert StepExecutionLog.objects.filter(trigger__workflow=workflow).count() == SENDS
    span = (
        ledgers.aggregate(last=Max("sent_at"))["last"]
        - triggers.aggregate(first=Min("created_at"))["first"]
    )
    # A burst of 20, then one every 50 ms: the 200th leaves 9 s after the first.
    print(f"{SENDS} sends at {RATE}/s over 2 workers: {span.total_seconds():.2f} s")
    assert 9 <= span.total_seconds() <= 13, span
    assert (
        sum(len(smtp_server.handler.to(f"ok-{run}-{n}@example.com")) for n in range(SENDS)) == SENDS
    )
