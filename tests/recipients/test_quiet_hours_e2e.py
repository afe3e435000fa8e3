"""Quiet hours end to end, with the stack's real workers, beat and SMTP server
(docs/quiet-hours.md): a run fired inside the person's quiet hours is held, its email sent only
once they end; a run at the bypass priority goes through at once."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection

from recipients.models import Recipient
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node
from tests.workers.helpers import wait_terminal
from triggers.services import TriggerRequest, triggers_create
from workers.models import StepExecutionLog

pytestmark = pytest.mark.e2e

ZONE = ZoneInfo("America/Sao_Paulo")


def database_now() -> datetime:
    with connection.cursor() as cursor:
        cursor.execute("SELECT now()")
        return cursor.fetchone()[0]


def fire(workflow, recipient: str, address: str, priority: int | None = None) -> str:
    request = TriggerRequest(
        workflow.key,
        unique("key"),
        {"email": address, "name": "Ada"},
        priority=priority,
        recipient=recipient,
    )
    ((trigger, created),) = triggers_create([request])
    assert created
    return str(trigger.pk)


def test_an_email_fired_inside_quiet_hours_is_sent_when_they_end(e2e, smtp_server):
    now = database_now().astimezone(ZONE)
    # They end at the next whole minute at least 5 s away (quiet hours are to the minute).
    ends = (now + timedelta(seconds=65)).replace(second=0, microsecond=0)
    quiet = {"start": (now - timedelta(hours=1)).strftime("%H:%M"), "end": ends.strftime("%H:%M")}
    person = Recipient.objects.create(
        key=unique("quiet"), timezone="America/Sao_Paulo", quiet_hours=quiet
    ).key
    address = f"ok-{unique()}@example.com"

    trigger = wait_terminal(
        fire(WorkflowFactory(definition=chain(email_node("mail"))), person, address), timeout=120
    )

    assert trigger.status == "completed", trigger.last_error
    assert len(smtp_server.handler.to(address)) == 1
    held, sent = StepExecutionLog.objects.filter(trigger=trigger, node_id="mail").order_by("id")
    assert held.output["decision"]["decision"] == "deferred"
    assert held.output["decision"]["rule"] == "quiet_hours"
    assert datetime.fromisoformat(held.output["until"]) == ends
    assert sent.output["decision"]["decision"] == "sent"
    assert sent.started_at >= ends  # not a moment before they ended


def test_a_run_at_the_bypass_priority_is_sent_inside_quiet_hours_at_once(e2e, smtp_server):
    now = database_now().astimezone(ZONE)
    quiet = {
        "start": (now - timedelta(hours=1)).strftime("%H:%M"),
        "end": (now + timedelta(hours=2)).strftime("%H:%M"),
    }
    person = Recipient.objects.create(
        key=unique("quiet"), timezone="America/Sao_Paulo", quiet_hours=quiet
    ).key
    address = f"ok-{unique()}@example.com"
    workflow = WorkflowFactory(definition=chain(email_node("mail")))

    trigger = wait_terminal(fire(workflow, person, address, priority=9))

    assert trigger.status == "completed" and len(smtp_server.handler.to(address)) == 1
    (log,) = StepExecutionLog.objects.filter(trigger=trigger, node_id="mail")
    assert log.output["decision"]["decision"] == "sent"
