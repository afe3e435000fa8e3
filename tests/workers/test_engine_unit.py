"""The engine in-process: ledger reuse, the crash window, error classes and attempt counting."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.test import override_settings
from django.utils import timezone

from tests.factories import chain, delay_node, email_node, sms_node
from tests.workers.helpers import due_trigger, logged_failure, node_output
from triggers.models import TriggerInstance
from triggers.state import trigger_cancel
from triggers.steps import trigger_claim_with
from workers.channels import CHANNELS
from workers.models import SendLedger, StepExecutionLog
from workers.services.engine import step_execute
from workers.services.ledger import SendSlot, send_slot
from workflows.semantics import sending_types

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("locmem_email"),
]


@pytest.fixture
def locmem_email():
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        yield


RECORDED = {"message_id": "<earlier@x>", "to": "a@example.com", "sent_at": "2026-01-01T00:00:00Z"}


def ledger_sent(trigger: TriggerInstance, node_id: str = "mail") -> SendLedger:
    """The ledger row of an email an earlier attempt sent, with its result RECORDED."""
    return SendLedger.objects.create(
        trigger=trigger,
        node_id=node_id,
        idempotency_key=f"{trigger.pk}:{node_id}",
        channel="email",
        status="sent",
        result=RECORDED,
    )


def test_completed_send_in_ledger_is_reused_without_calling_provider():
    trigger = due_trigger()
    recorded = ledger_sent(trigger).result
    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "enqueued"
    assert mail.outbox == []
    trigger.refresh_from_db()
    assert trigger.vars["email_mail"] == recorded and trigger.current_node_id == "text"
    assert node_output(StepExecutionLog.objects.get(trigger=trigger)) == recorded


def test_send_left_in_flight_by_a_crash_is_resent_with_the_same_key():
    trigger = due_trigger()
    SendLedger.objects.create(
        trigger=trigger,
        node_id="mail",
        idempotency_key=f"{trigger.pk}:mail",
        channel="email",
        status="sending",
    )
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    (message,) = mail.outbox
    assert message.extra_headers["Message-ID"] == f"<{trigger.pk}.mail@notiflow.local>"
    ledger = SendLedger.objects.get(trigger=trigger)
    assert (ledger.status, ledger.send_count) == ("sent", 2)


def test_first_send_writes_ledger_once():
    trigger = due_trigger()
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    ledger = SendLedger.objects.get(trigger=trigger)
    assert (ledger.status, ledger.send_count, ledger.channel) == ("sent", 1, "email")
    assert ledger.result["message_id"] == mail.outbox[0].extra_headers["Message-ID"]


def claim_with_ledger(trigger: TriggerInstance):
    return trigger_claim_with(
        trigger_id=trigger.pk, worker_id="w/1", lease_seconds=30, channels=tuple(sending_types())
    )


def test_claim_of_a_send_node_opens_the_ledger_in_the_same_statement():
    trigger = due_trigger(definition=chain(sms_node("text"), email_node("mail")))
    claim = claim_with_ledger(trigger)
    assert claim is not None
    assert claim[0].status == "processing"
    assert send_slot(claim) == SendSlot(recorded_result=None, send_count=1)
    ledger = SendLedger.objects.get(trigger=trigger)
    assert (ledger.node_id, ledger.channel, ledger.status, ledger.send_count) == (
        "text",
        "sms",
        "sending",
        1,
    )
    assert ledger.idempotency_key == f"{trigger.pk}:text"


def test_claim_of_a_delay_node_opens_no_ledger_row():
    trigger = due_trigger(definition=chain(delay_node("wait", delay_ms=1), sms_node("text")))
    claim = claim_with_ledger(trigger)
    assert claim is not None and send_slot(claim) is None
    assert not SendLedger.objects.filter(trigger=trigger).exists()


def test_cancelled_trigger_is_not_claimed_and_gets_no_ledger_row():
    trigger = due_trigger()
    trigger_cancel(trigger_id=trigger.pk, actor="tests")
    assert claim_with_ledger(trigger) is None
    assert not SendLedger.objects.filter(trigger=trigger).exists()


def test_claim_of_a_node_already_sent_returns_its_result_and_leaves_the_row():
    trigger = due_trigger()
    ledger_sent(trigger)
    claim = claim_with_ledger(trigger)
    assert claim is not None
    assert send_slot(claim) == SendSlot(recorded_result=RECORDED, send_count=0)
    ledger = SendLedger.objects.get(trigger=trigger)
    assert (ledger.status, ledger.send_count) == ("sent", 1)


def test_a_render_failure_gives_the_send_slot_back():
    trigger = due_trigger(definition=chain(email_node("mail", subject="{{ payload.nope }}")))
    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "failed"
    assert mail.outbox == []
    ledger = SendLedger.objects.get(trigger=trigger)
    assert (ledger.status, ledger.send_count) == ("sending", 0)


@override_settings(NOTIFLOW_RETRY_BASE_SECONDS=60, NOTIFLOW_RETRY_JITTER=0)
def test_unexpected_exception_is_retried_like_a_transient_error(monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("provider SDK bug")

    monkeypatch.setattr(CHANNELS["email"], "send", explode)
    trigger = due_trigger()
    before = timezone.now()
    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "enqueued"
    trigger.refresh_from_db()
    assert trigger.attempts == 1 and "RuntimeError: provider SDK bug" in trigger.last_error
    assert before + timedelta(seconds=59) < trigger.available_at < before + timedelta(seconds=62)
    assert trigger.lease_until is None and trigger.leased_by == ""
    (step,) = StepExecutionLog.objects.filter(trigger=trigger)
    assert not step.success and step.attempt == 1


def test_attempts_reset_when_cursor_advances():
    trigger = due_trigger(attempts=2)
    logged_failure(trigger, 1)
    logged_failure(trigger, 2)
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    trigger.refresh_from_db()
    assert trigger.attempts == 0 and trigger.current_node_id == "text"
    assert StepExecutionLog.objects.filter(trigger=trigger).latest("attempt").attempt == 3


def test_step_log_numbers_continue_after_the_nodes_last_attempt_whatever_attempts_says():
    # An operator's retry resets `attempts` (the retry budget) to 0; the log must not reuse 1.
    trigger = due_trigger(attempts=0)
    logged_failure(trigger, 1)
    logged_failure(trigger, 2)
    logged_failure(trigger, 1, node_id="other")
    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "enqueued"
    attempts = StepExecutionLog.objects.filter(trigger=trigger, node_id="mail")
    assert sorted(attempts.values_list("attempt", "success")) == [(1, False), (2, False), (3, True)]


@override_settings(NOTIFLOW_MAX_RETRIES=3)
def test_failure_beyond_max_retries_fails_the_trigger(monkeypatch):
    from workers.errors import TransientError

    def defer(*args, **kwargs):
        raise TransientError("SMTP 451: later")

    monkeypatch.setattr(CHANNELS["email"], "send", defer)
    trigger = due_trigger(attempts=3)
    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "failed"
    trigger.refresh_from_db()
    assert trigger.status == "failed" and trigger.attempts == 4 and trigger.completed_at


def test_garbage_trigger_id_is_dropped_quietly():
    assert step_execute(trigger_id="not-a-uuid", worker_id="w") is None


def test_step_log_records_the_context_the_step_saw():
    trigger = due_trigger()
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    step = StepExecutionLog.objects.get(trigger=trigger)
    assert step.input["payload"]["name"] == "Al" and step.input["vars"] == {}
    assert step.input["trigger"]["id"] == str(trigger.pk)
    assert step.input["workflow"]["version"] == 1 and step.finished_at >= step.started_at


def test_send_is_marked_sent_even_when_the_step_then_fails(monkeypatch):
    from workers.services import engine
    from workflows.templating import TemplateError

    def broken(*args, **kwargs):
        raise TemplateError("condition 'x': boom")

    monkeypatch.setattr(engine, "next_node_id", broken)
    trigger = due_trigger()
    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "failed"
    assert len(mail.outbox) == 1
    # A later retry must find the send done, not send again.
    assert SendLedger.objects.get(trigger=trigger).status == "sent"
    assert "boom" in TriggerInstance.objects.get(pk=trigger.pk).last_error


def test_an_outcome_the_database_refuses_fails_the_trigger_instead_of_looping(monkeypatch):
    # jsonb refuses NUL: a provider answer carrying one cannot be merged into vars.
    answer = {"message_id": "<a\x00b@x>", "to": "a@example.com", "sent_at": "2026-01-01T00:00:00Z"}
    monkeypatch.setattr(CHANNELS["email"], "send", lambda *args, **kwargs: answer)
    trigger = due_trigger()

    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "failed"

    trigger.refresh_from_db()
    assert trigger.status == "failed" and trigger.lease_until is None
    assert trigger.last_error.startswith("could not record the outcome of node mail")
    assert "unsupported Unicode escape sequence" in trigger.last_error
    # The send happened: the ledger says so (NUL dropped), and a retry reuses it, not resends.
    ledger = SendLedger.objects.get(trigger=trigger)
    assert (ledger.status, ledger.send_count) == ("sent", 1)
    assert ledger.result["message_id"] == "<ab@x>"
    assert list(trigger.events.values_list("to_status", flat=True)) == ["processing", "failed"]


@override_settings(
    NOTIFLOW_RETRY_BASE_SECONDS=60, NOTIFLOW_RETRY_JITTER=0.1, NOTIFLOW_RETRY_MAX_SECONDS=600
)
def test_retry_backoff_doubles_then_stops_at_the_cap():
    from workers.services.step import retry_backoff

    assert timedelta(seconds=60) <= retry_backoff(1) <= timedelta(seconds=66)
    assert timedelta(seconds=240) <= retry_backoff(3) <= timedelta(seconds=264)
    assert retry_backoff(5) == retry_backoff(40) == timedelta(seconds=600)


@override_settings(NOTIFLOW_MAX_RETRIES=3)
def test_a_node_whose_worker_keeps_dying_ends_failed_instead_of_looping():
    # Each reclaim after an expired lease counts an attempt; past the budget the node is not
    # run again (no provider call), and the trigger fails saying why.
    trigger = due_trigger()
    for dead in range(4):
        claimed = trigger_claim_with(
            trigger_id=trigger.pk,
            worker_id=f"dead-{dead}",
            lease_seconds=60,
            channels=tuple(sending_types()),
        )
        assert claimed is not None and claimed[0].attempts == dead
        TriggerInstance.objects.filter(pk=trigger.pk).update(
            lease_until=timezone.now() - timedelta(hours=1)
        )

    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "failed"

    trigger.refresh_from_db()
    assert "lost its worker 4 times" in trigger.last_error and mail.outbox == []
    ledger = SendLedger.objects.get(trigger=trigger)
    assert ledger.status == "sending" and ledger.send_count == 4  # the dead tries, not this one
