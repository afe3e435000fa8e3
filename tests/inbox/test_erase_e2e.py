"""Erasing a person while their run waits, end to end (docs/security/recipients.md, "Erasing a recipient"):
real gunicorn, workers and beat. A run with a delay before an in-app node; the person is erased
over the API during the delay; the in-app step is skipped (rule `recipient_erased`) and stores
nothing, the stream the person had open ends, and their old token reads nothing."""

from __future__ import annotations

import pytest
import requests

from inbox.models import InboxMessage
from recipients.models import Recipient
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node
from tests.inbox.support import StreamReader, stack_headers
from tests.inbox.test_inapp_node import inapp_node
from tests.support.stack import wait_for
from tests.workers.helpers import node_output, wait_terminal
from triggers.models import TriggerInstance
from workers.models import StepExecutionLog

pytestmark = pytest.mark.e2e


def test_a_run_in_flight_stores_nothing_for_a_person_erased_during_its_delay(api, e2e):
    workflow = WorkflowFactory(definition=chain(delay_node(duration="8s"), inapp_node()))
    key = Recipient.objects.create(key=unique("person")).key
    headers = stack_headers(key)
    created = api.post(
        "/api/triggers/",
        {
            "workflow": workflow.key,
            "idempotency_key": unique("k"),
            "recipient": key,
            "payload": {"name": "Ada", "amount": "3"},
        },
    )
    assert created.status_code == 201, created.text
    run_id = created.json()["id"]
    wait_for(
        lambda: StepExecutionLog.objects.filter(trigger_id=run_id, node_id="wait").exists(),
        timeout=15,
        message="the delay's step",
    )
    stream = StreamReader(f"{e2e.base_url}/api/inbox/stream/", headers)
    try:
        wait_for(lambda: stream.find("counts"), timeout=10, message="the first counts")

        erased = api.delete(f"/api/recipients/{key}/")

        assert erased.status_code == 200, erased.text
        # Erased within the delay: the in-app step had not run yet.
        assert TriggerInstance.objects.get(pk=run_id).current_node_id == "bell"
        stream.thread.join(timeout=10)
        assert not stream.thread.is_alive(), "the erased person's stream is still open"
    finally:
        stream.close()

    run = wait_terminal(run_id)
    assert run.status == "completed", run.last_error
    step = StepExecutionLog.objects.get(trigger_id=run_id, node_id="bell")
    assert step.success and node_output(step) == {
        "skipped": "the recipient was erased",
        "rule": "recipient_erased",
    }
    assert not InboxMessage.objects.filter(recipient=key).exists()
    assert not InboxMessage.objects.filter(trigger_id=run_id).exists()
    for path in ("/api/inbox/", "/api/inbox/counts/"):
        answer = requests.get(f"{e2e.base_url}{path}", headers=headers, timeout=10)
        assert answer.status_code == 401, answer.text
        assert "revoked" in answer.json()["detail"]
