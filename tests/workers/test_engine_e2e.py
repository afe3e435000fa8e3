"""The engine end to end: real gunicorn, two Celery workers, beat, PostgreSQL, Redis, SMTP."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.conftest import sms_outbox, unique
from tests.factories import WorkflowFactory, chain, delay_node, email_node, sms_node
from tests.support.stack import wait_for
from tests.workers.helpers import fire, wait_terminal
from triggers.models import TriggerInstance
from workers.models import SendLedger, StepExecutionLog

pytestmark = pytest.mark.e2e


def logs(trigger_id):
    return list(StepExecutionLog.objects.filter(trigger_id=trigger_id).order_by("started_at"))


def test_email_delay_sms_runs_to_completed(api, e2e, smtp_server):
    workflow = WorkflowFactory(
        definition=chain(
            email_node("welcome", subject="Welcome {{ payload.name }} to {{ workflow.key }}"),
            delay_node("pause", delay_ms=300),
            sms_node(
                "text", body="Code {{ payload.code }} after {{ vars.email_welcome.message_id }}"
            ),
        )
    )
    address = f"ok-{unique()}@example.com"
    trigger_id = fire(
        api, workflow, {"email": address, "name": "Ann", "phone": "+15550100", "code": 42}
    )

    trigger = wait_terminal(trigger_id)
    assert trigger.status == "completed" and trigger.cursor is None and trigger.attempts == 0

    steps = logs(trigger_id)
    assert [(s.node_id, s.success) for s in steps] == [
        ("welcome", True),
        ("pause", True),
        ("text", True),
    ]
    # The delay counts from inside the delay step, so from its start; never early, whatever the
    # machine's load (how late is bench's delay figure, not an assertion).
    assert steps[2].started_at - steps[1].started_at >= timedelta(milliseconds=300)

    (mail,) = smtp_server.handler.to(address)
    assert mail.subject == f"Welcome Ann to {workflow.key}"
    assert mail.message_id == f"<{trigger_id}.welcome@notiflow.local>"

    (sms,) = [m for m in sms_outbox(e2e) if m["idempotency_key"] == f"{trigger_id}:text"]
    assert sms["to"] == "+15550100" and sms["body"] == f"Code 42 after {mail.message_id}"

    assert trigger.vars["email_welcome"]["message_id"] == mail.message_id
    assert trigger.vars["sms_text"]["message_id"] == sms["message_id"]
    assert api.get(f"/api/triggers/{trigger_id}/").json()["status"] == "completed"
    assert [s["node_id"] for s in api.get(f"/api/triggers/{trigger_id}/logs/").json()] == [
        "welcome",
        "pause",
        "text",
    ]
    assert list(trigger.events.values_list("to_status", flat=True)) == [
        "enqueued",
        "processing",
        "enqueued",
        "processing",
        "enqueued",
        "processing",
        "completed",
    ]


def test_conditional_edges_take_the_first_branch_that_holds(api, e2e):
    definition = {
        "entry_node_id": "start",
        "nodes": [
            delay_node("start", delay_ms=0),
            sms_node("pro"),
            sms_node("vip"),
            sms_node("basic"),
        ],
        "edges": [
            {"from": "start", "to": "pro", "when": 'payload.plan == "pro"'},
            {"from": "start", "to": "vip", "when": "payload.vip"},
            {"from": "start", "to": "basic"},
        ],
    }
    workflow = WorkflowFactory(definition=definition)
    cases = {"pro": {"plan": "pro", "vip": True}, "vip": {"plan": "free", "vip": True}, "basic": {}}
    ids = {
        branch: fire(api, workflow, {"phone": "+15550199", "name": "N", **payload})
        for branch, payload in cases.items()
    }
    for branch, trigger_id in ids.items():
        assert wait_terminal(trigger_id).status == "completed"
        assert [s.node_id for s in logs(trigger_id)] == ["start", branch]


def test_no_edge_holding_ends_the_run(api, e2e):
    definition = chain(delay_node("start", delay_ms=0), sms_node("only_pro"))
    definition["edges"][0]["when"] = 'payload.plan == "pro"'
    trigger_id = fire(
        api, WorkflowFactory(definition=definition), {"phone": "+15550199", "name": "N"}
    )
    assert wait_terminal(trigger_id).status == "completed"
    assert [s.node_id for s in logs(trigger_id)] == ["start"]


def test_delay_beyond_countdown_cap_is_left_to_the_sweeper_and_never_runs_early(api, e2e):
    """A 4 s wait with the stack's countdown cap at 2 s and sweep interval 1 s (docs/design/rules.md,
    rule 5): the engine leaves it in `available_at` for the sweeper instead of nudging, and the
    next step runs once, not before it is due.

    Deterministic: every bound below compares instants the system itself recorded (on one
    clock), none against the wall clock. How late the step runs is not asserted: that depends on
    the machine and is what `make bench` reports (figure 5, bench/delays.py, both paths). The
    sweeper's look-ahead countdown is checked exactly in tests/workers/test_sweeper.py
    (test_looks_ahead_one_interval_with_a_countdown), and the engine's choice between a
    countdown and the sweeper in tests/workers/test_step_schedule.py."""
    wait, lookahead = timedelta(seconds=4), timedelta(seconds=1)
    workflow = WorkflowFactory(
        definition=chain(delay_node("long", delay_ms=4000), sms_node("after"))
    )
    trigger_id = fire(api, workflow, {"phone": "+15550199", "name": "N"})

    def waiting_at_after() -> TriggerInstance | None:
        trigger = TriggerInstance.objects.get(pk=trigger_id)
        if trigger.current_node_id == "after" and trigger.status == "enqueued":
            return trigger
        assert trigger.current_node_id == "long", "the 4 s wait at 'after' was never seen"
        return None

    # The trigger waits at 'after' for about 4 s: plenty for a 20 ms poll to see it.
    waiting = wait_for(waiting_at_after, timeout=10, interval=0.02, message="waiting at 'after'")
    (delay_step,) = logs(trigger_id)
    due = waiting.available_at
    # Due = the delay step's own instant + 4 s; the engine takes that instant between the step's
    # start and finish (workers/services/step.py outcome_success, then workers/services/engine.py _record).
    assert delay_step.started_at + wait <= due <= delay_step.finished_at + wait
    # Not nudged at release (that would be 4 s ahead of due); only the sweeper's look-ahead may
    # have nudged it since, which the sweep statement does no earlier than one interval ahead.
    assert waiting.nudged_at is None or waiting.nudged_at >= due - lookahead

    trigger = wait_terminal(trigger_id, timeout=20)
    assert trigger.status == "completed" and trigger.attempts == 0
    delay_step, sms_step = logs(trigger_id)
    claims = trigger.events.filter(to_status="processing", node_id="after")
    assert claims.count() == 1
    # The claim only takes a trigger whose available_at has passed (triggers/sql.py); the step
    # starts after its claim.
    assert claims.get().created_at >= due and sms_step.started_at >= due


def test_smtp_451_twice_then_accepted_backs_off_exponentially(api, e2e, smtp_server):
    address = f"defer2-{unique()}@example.com"
    workflow = WorkflowFactory(definition=chain(email_node("mail", to=address)))
    trigger_id = fire(api, workflow, {"name": "Bo"})
    trigger = wait_terminal(trigger_id)
    assert trigger.status == "completed"
    steps = logs(trigger_id)
    assert [(s.attempt, s.success) for s in steps] == [(1, False), (2, False), (3, True)]
    assert "451" in steps[0].error
    # Never early: a failed attempt sets available_at = (an instant inside that attempt) +
    # base * 2^(n-1). How much later is load, not backoff; the exact delays and the countdown
    # each retry is nudged with are tests/workers/test_step_schedule.py's.
    base = timedelta(seconds=0.5)  # NOTIFLOW_RETRY_BASE_SECONDS in the stack, jitter off
    for before, after, expected in ((steps[0], steps[1], base), (steps[1], steps[2], 2 * base)):
        gap = after.started_at - before.started_at
        assert gap >= expected, f"attempt {after.attempt} came {gap} after the previous one"
    assert len(smtp_server.handler.to(address)) == 1
    assert SendLedger.objects.get(trigger_id=trigger_id).status == "sent"


def test_smtp_451_always_fails_after_one_plus_three_attempts(api, e2e):
    workflow = WorkflowFactory(
        definition=chain(email_node("mail", to=f"defer-{unique()}@example.com"))
    )
    trigger = wait_terminal(fire(api, workflow, {"name": "Cy"}), timeout=30)
    assert trigger.status == "failed" and "451" in trigger.last_error
    assert [s.attempt for s in logs(trigger.pk)] == [1, 2, 3, 4]
    assert trigger.cursor == {"current_node_id": "mail"}


def test_smtp_550_fails_at_once(api, e2e):
    workflow = WorkflowFactory(
        definition=chain(email_node("mail", to=f"reject-{unique()}@example.com"))
    )
    trigger = wait_terminal(fire(api, workflow, {"name": "Di"}))
    assert trigger.status == "failed" and "550" in trigger.last_error
    assert len(logs(trigger.pk)) == 1


def test_undefined_variable_fails_permanently_naming_it(api, e2e):
    workflow = WorkflowFactory(
        definition=chain(email_node("mail", subject="Hi {{ payload.first_name }}"))
    )
    trigger = wait_terminal(fire(api, workflow, {"email": "ok-x@example.com"}))
    assert trigger.status == "failed" and "payload.first_name" in trigger.last_error
    (step,) = logs(trigger.pk)
    assert not step.success and "payload.first_name" in step.error
    # The claim opened the send slot; the failed render gave it back: nothing reached the provider.
    ledger = SendLedger.objects.filter(trigger_id=trigger.pk).values_list("status", "send_count")
    assert list(ledger) == [("sending", 0)]


def test_empty_recipient_fails_permanently(api, e2e):
    workflow = WorkflowFactory(definition=chain(sms_node("text")))
    trigger = wait_terminal(fire(api, workflow, {"phone": "", "name": "N"}))
    assert trigger.status == "failed" and "recipient" in trigger.last_error


def test_in_flight_trigger_keeps_its_workflow_version(api, e2e):
    from workflows.services import workflow_update

    workflow = WorkflowFactory(
        definition=chain(delay_node("wait", delay_ms=1500), sms_node("v1", body="one"))
    )
    trigger_id = fire(api, workflow, {"phone": "+15550199", "name": "N"})
    workflow_update(
        workflow=workflow,
        definition=chain(delay_node("wait", delay_ms=0), sms_node("v2", body="two")),
    )
    assert wait_terminal(trigger_id).status == "completed"
    assert [s.node_id for s in logs(trigger_id)] == ["wait", "v1"]
