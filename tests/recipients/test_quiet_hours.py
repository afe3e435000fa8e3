"""Quiet hours a person sets (docs/quiet-hours.md): the profile holds them (PATCH, PUT, GET, a
400 naming the field for a bad one); a send of a run that is not urgent, due inside them, is
held until they end as a send window holds a run (the same node again then, the step log
`deferred` with the end, nothing sent, the send slot given back); a required workflow or a
priority at the bypass setting sends at once; the person's dry run says `deferred` too."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.utils import timezone

from recipients.models import Recipient
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.workers.helpers import due_trigger, node_output
from triggers.models import TriggerEvent, TriggerInstance
from workers.models import SendLedger, StepExecutionLog
from workers.services.engine import step_execute

pytestmark = pytest.mark.django_db

ZONE = "Asia/Tokyo"
PAYLOAD = {"email": "ada@example.com", "phone": "+15550100", "name": "Ada"}


@pytest.fixture(autouse=True)
def locmem(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def around_now(before=timedelta(hours=1), after=timedelta(hours=2)) -> dict:
    """Quiet hours in ZONE that hold now: from `before` ago to `after` from now (minutes)."""
    local = timezone.now().astimezone(ZoneInfo(ZONE))
    return {
        "start": (local - before).strftime("%H:%M"),
        "end": (local + after).strftime("%H:%M"),
    }


def quiet_person(**fields) -> str:
    key = unique("quiet")
    Recipient.objects.create(key=key, timezone=ZONE, quiet_hours=around_now(), **fields)
    return key


def step(trigger: TriggerInstance) -> TriggerInstance:
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    trigger.refresh_from_db()
    return trigger


# --- the profile ------------------------------------------------------------------------------


def test_patch_sets_and_clears_quiet_hours_and_get_shows_them(api_client):
    key = unique("user")
    url = f"/api/recipients/{key}/"
    quiet = {"start": "22:00", "end": "08:00", "days": ["mon", "tue"]}

    created = api_client.patch(
        url, {"quiet_hours": quiet, "timezone": "Europe/Paris"}, format="json"
    )
    assert created.status_code == 201, created.content
    assert created.json()["quiet_hours"] == quiet
    assert api_client.patch(url, {"name": "Ada"}, format="json").json()["quiet_hours"] == quiet
    assert Recipient.objects.get(key=key).quiet_hours == quiet

    cleared = api_client.patch(url, {"quiet_hours": None}, format="json")
    assert cleared.status_code == 200 and cleared.json()["quiet_hours"] is None
    assert Recipient.objects.get(key=key).quiet_hours == {}
    assert api_client.get(url).json()["quiet_hours"] is None


def test_put_without_quiet_hours_clears_them(api_client):
    key = unique("user")
    Recipient.objects.create(key=key, quiet_hours={"start": "22:00", "end": "08:00"})
    response = api_client.put(f"/api/recipients/{key}/", {"name": "Ada"}, format="json")
    assert response.status_code == 200 and response.json()["quiet_hours"] is None


@pytest.mark.parametrize(
    ("quiet", "path"),
    [
        ({"start": "22:00"}, "end"),
        ({"start": "22:00", "end": "8"}, "end"),
        ({"start": "22:00", "end": "08:00", "days": ["funday"]}, "days"),
        ({"start": "22:00", "end": "08:00", "until": "x"}, "until"),
    ],
)
def test_a_bad_value_is_a_400_naming_its_path(api_client, quiet, path):
    key = unique("user")
    response = api_client.patch(f"/api/recipients/{key}/", {"quiet_hours": quiet}, format="json")
    assert response.status_code == 400, response.content
    assert path in response.json()["errors"]["quiet_hours"]
    assert not Recipient.objects.filter(key=key).exists()


def test_a_value_that_is_not_an_object_is_a_400(api_client):
    response = api_client.patch(
        f"/api/recipients/{unique('user')}/", {"quiet_hours": "22-08"}, format="json"
    )
    assert response.status_code == 400
    assert "must be an object" in str(response.json()["errors"]["quiet_hours"])


# --- the send path ----------------------------------------------------------------------------


def test_a_send_inside_quiet_hours_is_held_until_they_end_and_then_sent():
    person = quiet_person()
    trigger = due_trigger(chain(email_node("mail"), sms_node("text")), PAYLOAD, recipient=person)

    held = step(trigger)

    assert mail.outbox == []
    assert held.status == "enqueued" and held.current_node_id == "mail"
    assert held.attempts == 0 and held.last_error == ""
    ends = Recipient.objects.get(key=person).quiet_hours["end"]
    log = StepExecutionLog.objects.get(trigger=trigger, node_id="mail")
    assert log.success
    decision = log.output["decision"]
    assert decision["decision"] == "deferred" and decision["rule"] == "quiet_hours"
    until = datetime.fromisoformat(decision["evidence"]["until"])
    assert until.strftime("%H:%M") == ends
    assert until.utcoffset() == timedelta(hours=9)  # said in the person's zone
    assert "quiet hours" in decision["reason"] and ends in decision["reason"]
    assert node_output(log) == {"deferred": "quiet_hours", "until": decision["evidence"]["until"]}
    # Held as a window holds: due at the end (on the database's clock), the slot given back.
    assert abs((held.available_at - until).total_seconds()) < 5
    assert SendLedger.objects.get(trigger=trigger, node_id="mail").send_count == 0
    reasons = TriggerEvent.objects.filter(trigger=trigger).values_list("reason", flat=True)
    assert "mail waits" in reasons

    # The hours are over (the person cleared them; the time has come): the same node sends.
    Recipient.objects.filter(key=person).update(quiet_hours={})
    TriggerInstance.objects.filter(pk=trigger.pk).update(
        available_at=timezone.now() - timedelta(seconds=1)
    )
    sent = step(held)
    assert sent.current_node_id == "text" and [m.to for m in mail.outbox] == [[PAYLOAD["email"]]]
    logs = StepExecutionLog.objects.filter(trigger=trigger, node_id="mail").order_by("id")
    assert [row.output["decision"]["decision"] for row in logs] == ["deferred", "sent"]


def test_outside_quiet_hours_the_send_goes_at_once():
    person = unique("quiet")
    Recipient.objects.create(
        key=person, timezone=ZONE, quiet_hours=around_now(-timedelta(hours=2), timedelta(hours=3))
    )
    trigger = step(due_trigger(chain(email_node("mail")), PAYLOAD, recipient=person))
    assert trigger.status == "completed" and len(mail.outbox) == 1


def test_quiet_hours_on_other_days_hold_nothing():
    today = timezone.now().astimezone(ZoneInfo(ZONE))
    others = [
        d
        for i, d in enumerate(("mon", "tue", "wed", "thu", "fri", "sat", "sun"))
        if i not in (today.weekday(), (today.weekday() - 1) % 7)
    ]
    person = unique("quiet")
    Recipient.objects.create(
        key=person, timezone=ZONE, quiet_hours={**around_now(), "days": others}
    )
    trigger = step(due_trigger(chain(email_node("mail")), PAYLOAD, recipient=person))
    assert trigger.status == "completed" and len(mail.outbox) == 1


def test_a_required_workflow_sends_inside_quiet_hours():
    person = quiet_person()
    trigger = due_trigger(
        {**chain(email_node("mail")), "required": True}, PAYLOAD, recipient=person
    )
    assert step(trigger).status == "completed" and len(mail.outbox) == 1


def test_a_run_at_the_bypass_priority_sends_inside_quiet_hours_and_one_below_is_held(settings):
    settings.NOTIFLOW_QUIET_HOURS_BYPASS_PRIORITY = 8
    person = quiet_person()
    urgent = due_trigger(chain(email_node("mail")), PAYLOAD, recipient=person, priority=8)
    assert step(urgent).status == "completed" and len(mail.outbox) == 1
    below = due_trigger(chain(email_node("mail")), PAYLOAD, recipient=person, priority=7)
    assert step(below).status == "enqueued" and len(mail.outbox) == 1


def test_a_run_without_a_recipient_is_not_asked():
    trigger = step(due_trigger(chain(email_node("mail")), PAYLOAD))
    assert trigger.status == "completed" and len(mail.outbox) == 1


def test_a_node_that_sends_nothing_is_not_held():
    person = quiet_person()
    delay = {"id": "wait", "type": "delay", "duration": "1s"}
    trigger = step(due_trigger(chain(delay, email_node("mail")), PAYLOAD, recipient=person))
    assert trigger.current_node_id == "mail"  # the delay ran; the email is next (and held)
    log = StepExecutionLog.objects.get(trigger=trigger, node_id="wait")
    assert log.output["decision"]["rule"] != "quiet_hours"


# --- the dry run ------------------------------------------------------------------------------


def test_the_recipients_dry_run_says_deferred_until_their_quiet_hours_end(api_client):
    person = quiet_person(email="ada@example.com")
    workflow = WorkflowFactory(definition=chain(email_node("mail", to="{{ recipient.email }}")))

    response = api_client.get(f"/api/recipients/{person}/explain/?workflow={workflow.key}")

    assert response.status_code == 200, response.content
    (node,) = response.json()["nodes"]
    assert (node["decision"], node["rule"]) == ("deferred", "quiet_hours")
    assert "quiet hours" in node["reason"] and node["evidence"]["timezone"] == ZONE
    assert node["evidence"]["to"] == "ada@example.com"  # what the send would be, kept


def test_the_dry_run_of_a_required_workflow_says_sent(api_client):
    person = quiet_person(email="ada@example.com")
    definition = {**chain(email_node("mail", to="{{ recipient.email }}")), "required": True}
    workflow = WorkflowFactory(definition=definition)
    response = api_client.get(f"/api/recipients/{person}/explain/?workflow={workflow.key}")
    assert response.json()["nodes"][0]["decision"] == "sent"


def test_the_runs_explain_says_deferred_by_quiet_hours_with_their_end(api_client):
    person = quiet_person()
    trigger = step(due_trigger(chain(email_node("mail")), PAYLOAD, recipient=person))

    response = api_client.get(f"/api/triggers/{trigger.pk}/explain/")

    assert response.status_code == 200, response.content
    (node,) = [n for n in response.json()["story"] if n["node"] == "mail"]
    assert (node["decision"], node["rule"]) == ("deferred", "quiet_hours")
    ends = Recipient.objects.get(key=person).quiet_hours["end"]
    assert node["evidence"]["until"][11:16] == ends and ends in node["reason"]
