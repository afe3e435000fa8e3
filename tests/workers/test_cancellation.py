"""Cancellation: a cancelled trigger never sends again, whether it was waiting or mid-step."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from tests.conftest import sms_outbox, unique
from tests.factories import WorkflowFactory, chain, delay_node, email_node, sms_node
from tests.support.stack import wait_for
from tests.workers.helpers import fire
from tests.workers.test_crash_recovery import send_in_flight
from triggers.models import TriggerInstance
from workers.models import SendLedger, StepExecutionLog

pytestmark = pytest.mark.e2e


LIST = "/admin/triggers/triggerinstance/"


# The four ways to cancel a run: the API, the admin's button and bulk action, manage.py.
def cancel_api(api, operator, trigger_id: str) -> None:
    response = api.post(f"/api/triggers/{trigger_id}/cancel/", {})
    assert response.status_code == 200 and response.json()["status"] == "cancelled"


def cancel_button(api, operator, trigger_id: str) -> None:
    assert operator.post(f"{LIST}{trigger_id}/cancel/").status_code == 302


def cancel_action(api, operator, trigger_id: str) -> None:
    response = operator.post(LIST, {"action": "cancel_selected", "_selected_action": [trigger_id]})
    assert response.status_code == 302


def cancel_command(api, operator, trigger_id: str) -> None:
    out = StringIO()
    # By the 8 characters the admin shows.
    call_command("cancel_trigger", trigger_id[:8], stdout=out, stderr=StringIO())
    assert out.getvalue() == f"{trigger_id}: cancelled\n"


@pytest.mark.parametrize(
    "cancel",
    [cancel_api, cancel_button, cancel_action, cancel_command],
    ids=lambda f: f.__name__,
)
def test_cancel_during_pending_delay_never_sends(api, e2e, operator, cancel):
    workflow = WorkflowFactory(
        definition=chain(delay_node("wait", delay_ms=1500), sms_node("text"))
    )
    trigger_id = fire(api, workflow, {"name": "Lu", "phone": "+15550122"})
    wait_for(
        lambda: TriggerInstance.objects.filter(pk=trigger_id, current_node_id="text").exists(),
        timeout=10,
        message="delay step done",
    )
    cancel(api, operator, trigger_id)
    assert TriggerInstance.objects.get(pk=trigger_id).status == "cancelled"

    # The countdown nudge still arrives when the delay is over; its claim must find nothing.
    # A later trigger behind the same delay proves that nudge time has passed.
    witness = fire(api, workflow, {"name": "Wi", "phone": "+15550123"})
    wait_for(
        lambda: StepExecutionLog.objects.filter(trigger_id=witness, node_id="text").exists(),
        timeout=15,
        message="witness passed its delay",
    )
    assert TriggerInstance.objects.get(pk=trigger_id).status == "cancelled"
    assert not SendLedger.objects.filter(trigger_id=trigger_id).exists()
    assert [s.node_id for s in StepExecutionLog.objects.filter(trigger_id=trigger_id)] == ["wait"]
    assert not [m for m in sms_outbox(e2e) if m["idempotency_key"].startswith(trigger_id)]
    assert api.post(f"/api/triggers/{trigger_id}/cancel/", {}).status_code == 409


def test_cancel_while_processing_records_nothing_after_and_sends_nothing_more(
    api, e2e, smtp_server
):
    address = f"hang-{unique()}@example.com"
    workflow = WorkflowFactory(definition=chain(email_node("mail", to=address), sms_node("text")))
    trigger_id = fire(api, workflow, {"name": "Mo", "phone": "+15550133"})
    wait_for(lambda: send_in_flight(trigger_id, smtp_server), timeout=15, message="send in flight")

    assert api.post(f"/api/triggers/{trigger_id}/cancel/", {}).status_code == 200

    # The stalled step hits its time limit; its outcome must be dropped, not recorded.
    line = f"trigger {trigger_id}: outcome of node mail not recorded"
    wait_for(lambda: any(line in p.log() for p in e2e.processes), timeout=20, message=line)
    trigger = TriggerInstance.objects.get(pk=trigger_id)
    assert trigger.status == "cancelled" and trigger.current_node_id == "mail"
    assert not StepExecutionLog.objects.filter(trigger_id=trigger_id).exists()
    assert SendLedger.objects.get(trigger_id=trigger_id).send_count == 1
    assert smtp_server.handler.to(address) == []
    assert not [m for m in sms_outbox(e2e) if m["idempotency_key"].startswith(trigger_id)]
    assert list(trigger.events.values_list("to_status", flat=True))[-1] == "cancelled"
