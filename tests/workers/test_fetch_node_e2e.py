"""The fetch node end to end, with the stack's real workers (docs/guide/fetch.md): a workflow
fetches from a loopback stand-in with an operator's credential (the stack's environment allows
loopback and holds the credential), is retried through two 503s by the engine's backoff, and
its email is written from the answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import unique
from tests.factories import WorkflowFactory, email_node
from tests.support.fetch import FetchStandIn
from tests.workers.helpers import wait_terminal
from triggers.services import TriggerRequest, triggers_create
from workers.models import StepExecutionLog

pytestmark = pytest.mark.e2e


@pytest.fixture
def stand_in() -> Iterator[FetchStandIn]:
    server = FetchStandIn()
    server.start()
    yield server
    server.stop()


def test_a_fetched_answer_writes_the_email_after_transient_failures(e2e, smtp_server, stand_in):
    definition = {
        "entry_node_id": "order",
        "nodes": [
            {
                "id": "order",
                "type": "fetch",
                "url": stand_in.url("/flaky/2?order={{ payload.order_id }}"),
                "credential": "shop",
                "timeout": "1s",
            },
            email_node("mail", subject="Order {{ vars.fetch_order.body.status }}"),
        ],
        "edges": [
            {"from": "order", "to": "mail", "when": 'vars.fetch_order.body.status == "shipped"'}
        ],
    }
    workflow = WorkflowFactory(definition=definition)
    address = f"ok-{unique()}@example.com"
    request = TriggerRequest(
        workflow.key, unique("key"), {"email": address, "name": "Ada", "order_id": "o-9"}
    )
    ((trigger, _),) = triggers_create([request])

    done = wait_terminal(str(trigger.pk))

    assert done.status == "completed", done.last_error
    (message,) = smtp_server.handler.to(address)
    assert message.subject == "Order shipped"
    seen = stand_in.seen("/flaky/")
    assert len(seen) == 3 and all(r.headers["X-Api-Key"] == "e2e-secret" for r in seen)
    assert seen[0].path == "/flaky/2?order=o-9"
    decisions = [
        log.output["decision"]["decision"]
        for log in StepExecutionLog.objects.filter(trigger=trigger, node_id="order").order_by("id")
    ]
    assert decisions == ["retrying", "retrying", "passed"]
    for log in StepExecutionLog.objects.filter(trigger=trigger):
        assert "e2e-secret" not in str(log.input) + str(log.output) + log.error
