"""Bulk triggers and cancellation keys end to end, through the live gunicorn and a real worker:
what a bulk request stores runs to its end, and what a cancellation key cancels never sends
(docs/design/api.md, HTTP API)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from tests.conftest import sms_outbox, unique
from tests.factories import WorkflowFactory, chain, delay_node, sms_node
from tests.support.stack import wait_for
from tests.workers.helpers import wait_terminal
from triggers.models import TriggerInstance, TriggerStatus
from workers.models import SendLedger, StepExecutionLog

pytestmark = pytest.mark.e2e


def bulk(api, items):
    response = api.post("/api/triggers/bulk/", {"triggers": items})
    assert response.status_code == 200, response.text
    return response.json()["results"]


def test_what_a_bulk_request_stores_runs_to_the_end(api, e2e):
    workflow = WorkflowFactory(definition=chain(sms_node("text")))
    prefix = unique("bulk")
    items = [
        {
            "workflow": workflow.key,
            "idempotency_key": f"{prefix}-{i}",
            "payload": {"name": f"N{i}", "phone": f"+1555010{i:02d}"},
        }
        for i in range(20)
    ]
    results = bulk(api, [*items, items[3], {**items[4], "payload": []}])

    assert [r["status"] for r in results] == [201] * 20 + [200, 400]
    ids = [r["trigger"]["id"] for r in results[:20]]
    assert results[20]["trigger"]["id"] == ids[3]
    for trigger_id in ids:
        assert wait_terminal(trigger_id).status == TriggerStatus.COMPLETED
    keys = [m["idempotency_key"] for m in sms_outbox(e2e)]
    assert all(sum(key.startswith(i) for key in keys) == 1 for i in ids)
    # Once each: the replay in the request is the same run.
    assert SendLedger.objects.filter(trigger_id__in=ids).count() == 20


def cancel_api(api, cancellation_key: str, workflow_key: str) -> list[str]:
    response = api.post(
        "/api/triggers/cancel/", {"cancellation_key": cancellation_key, "workflow": workflow_key}
    )
    assert response.status_code == 200, response.text
    return response.json()["ids"]


def cancel_command(api, cancellation_key: str, workflow_key: str) -> list[str]:
    out = StringIO()
    call_command(
        "cancel_trigger",
        "--cancellation-key",
        cancellation_key,
        "--workflow",
        workflow_key,
        stdout=out,
        stderr=StringIO(),
    )
    return [line.split(":")[0] for line in out.getvalue().splitlines()]


@pytest.mark.parametrize("cancel", [cancel_api, cancel_command], ids=lambda f: f.__name__)
def test_a_cancellation_key_stops_every_run_carrying_it(api, e2e, cancel):
    workflow = WorkflowFactory(
        definition=chain(delay_node("wait", delay_ms=1500), sms_node("text"))
    )
    order = unique("order")
    results = bulk(
        api,
        [
            {
                "workflow": workflow.key,
                "idempotency_key": unique("key"),
                "payload": {"name": "Lu", "phone": "+15550131"},
                "cancellation_key": key,
            }
            for key in (order, order, unique("other"))
        ],
    )
    doomed = [r["trigger"]["id"] for r in results[:2]]
    witness = results[2]["trigger"]["id"]
    wait_for(
        lambda: TriggerInstance.objects.filter(pk__in=doomed, current_node_id="text").count() == 2,
        timeout=10,
        message="both past their delay step",
    )

    assert sorted(cancel(api, order, workflow.key)) == sorted(doomed)

    # The witness, delayed as long, ends: the cancelled runs' nudges have come and found nothing.
    assert wait_terminal(witness).status == TriggerStatus.COMPLETED
    for trigger_id in doomed:
        assert TriggerInstance.objects.get(pk=trigger_id).status == TriggerStatus.CANCELLED
        steps = StepExecutionLog.objects.filter(trigger_id=trigger_id)
        assert [step.node_id for step in steps] == ["wait"]
    assert not SendLedger.objects.filter(trigger_id__in=doomed).exists()
    assert cancel(api, order, workflow.key) == []
