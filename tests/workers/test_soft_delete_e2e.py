"""Soft delete end to end (docs/design/rules.md, rules 12 and 13): after a delete from the API or the
admin, the stack's real workers never run the trigger again, whether it waited in a delay, waited
to retry, or was sending; a step already running finishes and is logged; the idempotency key is
free again while the deleted run stays readable.

"Never" is proved without a bare sleep: a witness, a sibling of the same workflow started after
the deleted run, passes the point where the deleted run would have gone on, and only then is the
deleted run checked."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from tests.conftest import sms_outbox, unique
from tests.factories import WorkflowFactory, chain, delay_node, email_node, sms_node
from tests.support.stack import wait_for
from tests.workers.helpers import fire, wait_terminal
from tests.workers.test_crash_recovery import send_in_flight
from triggers.models import TriggerInstance, TriggerStatus
from workers.models import SendLedger, StepExecutionLog

pytestmark = pytest.mark.e2e

LIST = "/admin/triggers/triggerinstance/"


# The three doors: the API, the admin's bulk action (its confirmation page, then the POST) and
# manage.py delete_trigger.
def delete_api(api, operator: Client, trigger_id: str, reason: str) -> None:
    response = api.delete(f"/api/triggers/{trigger_id}/", {"reason": reason})
    assert response.status_code == 200, response.text
    assert response.json()["delete_reason"] == reason


def delete_admin(api, operator: Client, trigger_id: str, reason: str) -> None:
    chosen = {"action": "soft_delete_selected", "_selected_action": [trigger_id]}
    page = operator.post(LIST, chosen)
    assert page.status_code == 200 and 'name="reason"' in page.content.decode()
    done = operator.post(LIST, {**chosen, "post": "yes", "reason": reason})
    assert done.status_code == 302


def delete_command(api, operator: Client, trigger_id: str, reason: str) -> None:
    out, again = StringIO(), StringIO()
    # By the 8 characters the admin shows; a second time changes nothing and says so.
    call_command("delete_trigger", trigger_id[:8], reason=reason, stdout=out)
    call_command("delete_trigger", trigger_id[:8], reason="twice", stdout=again)
    assert out.getvalue().startswith(f"{trigger_id}: deleted")
    assert again.getvalue().startswith(f"{trigger_id}: already deleted at ")


def logged(trigger_id: str) -> list[tuple[str, int, bool]]:
    steps = StepExecutionLog.objects.filter(trigger_id=trigger_id).order_by("started_at")
    return [(s.node_id, s.attempt, s.success) for s in steps]


def step_started(trigger_id: str, node_id: str, attempt: int = 1) -> datetime | None:
    step = StepExecutionLog.objects.filter(
        trigger_id=trigger_id, node_id=node_id, attempt=attempt
    ).first()
    return step.started_at if step else None


def sms_sent(stack, trigger_id: str) -> list[dict]:
    return [m for m in sms_outbox(stack) if m["idempotency_key"].startswith(trigger_id)]


def claims_after_delete(trigger: TriggerInstance) -> list[str]:
    events = list(trigger.events.order_by("id").values_list("reason", flat=True))
    deleted = next(i for i, reason in enumerate(events) if reason.startswith("deleted"))
    return [r for r in events[deleted:] if r in ("claimed", "lease expired; reclaimed")]


@pytest.mark.parametrize(
    ("delete", "delay_ms"),
    [(delete_api, 1500), (delete_admin, 1500), (delete_command, 1500), (delete_api, 3000)],
    # 1.5 s is under the stack's countdown cap (2 s): the step's own countdown nudge arrives and
    # the claim refuses it. 3 s is over it: only the sweeper would nudge, and it never does.
    ids=["api-countdown", "admin-countdown", "command-countdown", "api-sweeper"],
)
def test_deleted_during_a_delay_never_runs_the_next_node(
    api, e2e, operator, delete: Callable[..., None], delay_ms: int
):
    workflow = WorkflowFactory(
        definition=chain(delay_node("wait", delay_ms=delay_ms), sms_node("text"))
    )
    trigger_id = fire(api, workflow, {"name": "Del", "phone": "+15550150"})
    wait_for(
        lambda: TriggerInstance.objects.filter(pk=trigger_id, current_node_id="text").exists(),
        timeout=10,
        message="delay step done",
    )

    delete(api, operator, trigger_id, "sent by mistake")

    witness = fire(api, workflow, {"name": "Wit", "phone": "+15550151"})
    witnessed = wait_for(
        lambda: step_started(witness, "text"), timeout=20, message="witness passed its delay"
    )
    trigger = TriggerInstance.objects.get(pk=trigger_id)
    assert trigger.available_at < witnessed  # the deleted run's delay was over by then
    assert (trigger.status, trigger.current_node_id) == ("enqueued", "text")
    assert trigger.deleted_at is not None and trigger.delete_reason == "sent by mistake"
    assert logged(trigger_id) == [("wait", 1, True)]
    assert not SendLedger.objects.filter(trigger_id=trigger_id).exists()
    assert sms_sent(e2e, trigger_id) == []
    assert claims_after_delete(trigger) == []
    if delay_ms > 2000:
        assert trigger.nudged_at is None  # the sweeper never nudged it
    assert wait_terminal(witness).status == TriggerStatus.COMPLETED


def test_deleted_while_waiting_to_retry_never_retries(api, e2e, smtp_server):
    # defer-*: every delivery is refused with 451 (transient). The stack retries after 0.5 s,
    # 1 s and 2 s; the delete lands in the 2 s wait before the fourth and last attempt.
    workflow = WorkflowFactory(definition=chain(email_node("mail"), sms_node("text")))
    address = f"defer-{unique()}@example.com"
    trigger_id = fire(api, workflow, {"email": address, "name": "Re", "phone": "+15550152"})
    # The witness goes through the same four attempts about half a second behind (fired once
    # the run's second attempt is logged, so the run's first 0.5 s backoff is its lead): its last
    # comes after the deleted run's retry was due. Fired once the first was logged, it was one
    # attempt's time behind, and came 30 ms before it once.
    wait_for(lambda: step_started(trigger_id, "mail", 2), timeout=10, message="second attempt")
    witness = fire(
        api, workflow, {"email": f"defer-{unique()}@example.com", "name": "W", "phone": "+15550157"}
    )
    wait_for(
        lambda: TriggerInstance.objects.filter(
            pk=trigger_id, status="enqueued", attempts=3
        ).exists(),
        timeout=15,
        message="third failure, waiting to retry",
    )

    response = api.delete(f"/api/triggers/{trigger_id}/", {"reason": "stop retrying"})

    assert response.status_code == 200
    assert (response.json()["status"], response.json()["attempts"]) == ("enqueued", 3)
    assert wait_terminal(witness, timeout=20).status == TriggerStatus.FAILED
    witness_last = step_started(witness, "mail", 4)
    trigger = TriggerInstance.objects.get(pk=trigger_id)
    assert witness_last is not None and trigger.available_at < witness_last
    assert (trigger.status, trigger.attempts) == ("enqueued", 3)
    assert logged(trigger_id) == [("mail", 1, False), ("mail", 2, False), ("mail", 3, False)]
    ledger = SendLedger.objects.get(trigger_id=trigger_id, node_id="mail")
    deliveries = smtp_server.handler.deliveries[f"<{trigger_id}.mail@notiflow.local>"]
    assert ledger.send_count == deliveries == 3
    assert claims_after_delete(trigger) == []


def test_deleted_while_sending_finishes_the_step_but_never_claims_the_next(api, e2e, smtp_server):
    # slow-*: the SMTP server accepts after 1.5 s, so the delete lands during the provider call.
    workflow = WorkflowFactory(definition=chain(email_node("mail"), sms_node("text")))
    address = f"slow-{unique()}@example.com"
    trigger_id = fire(api, workflow, {"email": address, "name": "Sl", "phone": "+15550153"})
    wait_for(lambda: send_in_flight(trigger_id, smtp_server), timeout=15, message="send in flight")

    response = api.delete(f"/api/triggers/{trigger_id}/", {"reason": "too late"})

    assert response.status_code == 200 and response.json()["status"] == "processing"
    # The running step finishes and records (its release is fenced by its lease, not by the
    # delete), then nudges the next node at once: the witness, started after that, completes.
    wait_for(lambda: step_started(trigger_id, "mail"), timeout=15, message="mail step logged")
    witness = fire(
        api, workflow, {"email": f"ok-{unique()}@example.com", "name": "W", "phone": "+15550156"}
    )
    assert wait_terminal(witness).status == TriggerStatus.COMPLETED
    trigger = TriggerInstance.objects.get(pk=trigger_id)
    assert (trigger.status, trigger.current_node_id, trigger.leased_by) == ("enqueued", "text", "")
    assert logged(trigger_id) == [("mail", 1, True)]
    assert SendLedger.objects.get(trigger_id=trigger_id, node_id="mail").status == "sent"
    assert len(smtp_server.handler.to(address)) == 1
    assert not SendLedger.objects.filter(trigger_id=trigger_id, node_id="text").exists()
    assert sms_sent(e2e, trigger_id) == []
    assert claims_after_delete(trigger) == []


def test_after_delete_the_same_key_starts_a_new_run_and_the_deleted_one_stays_readable(
    api, e2e, operator
):
    workflow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=0), sms_node("text")))
    key = unique("key")
    first = fire(api, workflow, {"name": "Fi", "phone": "+15550154"}, key=key)
    assert wait_terminal(first).status == TriggerStatus.COMPLETED
    delete_api(api, operator, first, "replay")

    again = api.post(
        "/api/triggers/",
        {
            "workflow": workflow.key,
            "idempotency_key": key,
            "payload": {"name": "Se", "phone": "+15550155"},
        },
    )

    assert again.status_code == 201 and again.json()["id"] != first
    second = again.json()["id"]
    assert wait_terminal(second).status == TriggerStatus.COMPLETED  # a worker ran the new one
    repeat = api.post(
        "/api/triggers/",
        {
            "workflow": workflow.key,
            "idempotency_key": key,
            "payload": {"name": "Se", "phone": "+15550155"},
        },
    )
    assert (repeat.status_code, repeat.json()["id"]) == (200, second)
    old = api.get(f"/api/triggers/{first}/").json()
    assert (old["status"], old["delete_reason"]) == ("completed", "replay")
    assert [step["node_id"] for step in api.get(f"/api/triggers/{first}/logs/").json()] == [
        "wait",
        "text",
    ]
    # The lists: the API's and the admin's leave the deleted run out unless asked for it.
    listed = lambda query: {t["id"] for t in api.get(query).json()["results"]}  # noqa: E731
    assert listed(f"/api/triggers/?workflow={workflow.key}") == {second}
    assert listed(f"/api/triggers/?workflow={workflow.key}&deleted=true") == {first}
    admin_list = f"{LIST}?workflow__id__exact={workflow.pk}"
    shown = lambda query: {str(t.pk) for t in operator.get(query).context["cl"].result_list}  # noqa: E731
    assert shown(admin_list) == {second}
    assert shown(admin_list + "&deleted=yes") == {first}
    assert shown(admin_list + "&deleted=all") == {first, second}
