"""wait_event on the real stack (gunicorn, Celery workers and beat): a posted event resumes a
waiting run, a timeout resumes it through the sweeper, an event and the timeout racing resume
it once; the operator posts an event from the admin (recorded with who) and cancels a waiting
run, which closes its wait; an in-app message marked read over the feed API resumes the run
waiting for it (docs/design/rules.md, rule 13)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import requests
from django.utils import timezone

from inbox.models import InboxMessage
from recipients.models import Recipient
from tests.conftest import unique
from tests.factories import WorkflowFactory, delay_node
from tests.inbox.support import stack_headers
from tests.support.stack import wait_for
from tests.support.waits import waits_time_out
from tests.workers.helpers import fire, wait_terminal
from triggers.models import TriggerEvent, TriggerInstance
from triggers.services import TriggerRequest, triggers_create
from waits.models import EventWait, ReceivedEvent

TRIGGERS = "/admin/triggers/triggerinstance/"


def waiting_workflow(name: str, timeout: str = "1h") -> Any:
    return WorkflowFactory(
        definition={
            "entry_node_id": "paid",
            "nodes": [
                {
                    "id": "paid",
                    "type": "wait_event",
                    "event": name,
                    "match": {"order_id": "{{ payload.order_id }}"},
                    "timeout": timeout,
                },
                delay_node("thanks", delay_ms=0),
                delay_node("remind", delay_ms=0),
            ],
            "edges": [
                {"from": "paid", "to": "thanks", "when": "vars.paid.received"},
                {"from": "paid", "to": "remind"},
            ],
        }
    )


def waiting(trigger_id: str) -> TriggerInstance:
    return wait_for(
        lambda: TriggerInstance.objects.filter(pk=trigger_id, status="waiting").first(),
        timeout=30,
        message=f"trigger {trigger_id} waiting",
    )


def route(trigger_id: str) -> str:
    return TriggerEvent.objects.filter(trigger_id=trigger_id).order_by("-id")[0].node_id or ""


def test_a_posted_event_resumes_the_waiting_run_on_the_stack(api):
    name = unique("order.paid")
    workflow = waiting_workflow(name)
    trigger_id = fire(api, workflow, {"order_id": "o-9"})
    waiting(trigger_id)
    assert api.get(f"/api/triggers/{trigger_id}/").json()["status"] == "waiting"
    response = api.post(
        "/api/events/", {"name": name, "id": unique("e"), "data": {"order_id": "o-9"}}
    )
    assert (response.status_code, response.json()["resumed"]) == (201, 1)
    done = wait_terminal(trigger_id)
    assert done.status == "completed"
    assert done.vars["paid"]["received"] is True and done.vars["paid"]["timed_out"] is False
    assert "thanks" in set(
        TriggerEvent.objects.filter(trigger_id=trigger_id).values_list("node_id", flat=True)
    )


def test_a_wait_times_out_through_the_sweeper(api):
    workflow = waiting_workflow(unique("order.paid"), timeout="1s")
    trigger_id = fire(api, workflow, {"order_id": "o-1"})
    done = wait_terminal(trigger_id, timeout=40)
    assert done.vars["paid"] == {"received": False, "event": None, "timed_out": True}
    nodes = set(
        TriggerEvent.objects.filter(trigger_id=trigger_id).values_list("node_id", flat=True)
    )
    assert "remind" in nodes and "thanks" not in nodes


def test_event_and_timeout_racing_resume_each_run_once(api):
    """Ten rounds: the timeout (this process's sweep; the stack's sweeper may also run) and two
    deliveries of one event race for a wait whose deadline is now."""
    name = unique("order.paid")
    workflow = waiting_workflow(name)
    ways = {"received": 0, "timed_out": 0}
    for round_ in range(10):
        trigger_id = fire(api, workflow, {"order_id": f"r{round_}"})
        waiting(trigger_id)
        EventWait.objects.filter(trigger_id=trigger_id).update(deadline=timezone.now())
        barrier = threading.Barrier(3)
        answers: list[int] = []
        body = {"name": name, "id": f"{name}-{round_}", "data": {"order_id": f"r{round_}"}}

        def deliver(barrier=barrier, body=body, answers=answers) -> None:
            barrier.wait(timeout=10)
            answers.append(api.post("/api/events/", body).json()["resumed"])

        threads = [threading.Thread(target=deliver) for _ in range(2)]
        for thread in threads:
            thread.start()
        barrier.wait(timeout=10)
        waits_time_out()
        for thread in threads:
            thread.join(timeout=20)
        done = wait_terminal(trigger_id)
        resumes = TriggerEvent.objects.filter(
            trigger_id=trigger_id, from_status="waiting", to_status="enqueued"
        ).count()
        assert resumes == 1
        result = done.vars["paid"]
        assert result["received"] != result["timed_out"]
        assert sum(answers) == (1 if result["received"] else 0)
        ways["received" if result["received"] else "timed_out"] += 1
    assert sum(ways.values()) == 10


def test_the_operator_posts_an_event_from_the_admin_and_the_run_resumes(api, operator):
    name = unique("order.paid")
    trigger_id = fire(api, waiting_workflow(name), {"order_id": "adm"})
    waiting(trigger_id)
    listing = operator.get("/admin/waits/eventwait/")
    assert listing.status_code == 200 and name in listing.content.decode()
    event_id = unique("admin-evt")
    response = operator.post(
        "/admin/waits/receivedevent/add/",
        {"name": name, "event_id": event_id, "data": '{"order_id": "adm"}'},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    done = wait_terminal(trigger_id)
    assert done.vars["paid"]["received"] is True
    assert ReceivedEvent.objects.get(event_id=event_id).created_by.startswith("admin:")
    assert EventWait.objects.get(trigger_id=trigger_id).resolved_by.startswith("admin:")


def test_the_operator_cancels_a_waiting_run(api, operator):
    name = unique("order.paid")
    trigger_id = fire(api, waiting_workflow(name), {"order_id": "c"})
    waiting(trigger_id)
    assert operator.post(f"{TRIGGERS}{trigger_id}/cancel/").status_code == 302
    assert TriggerInstance.objects.get(pk=trigger_id).status == "cancelled"
    body = {"name": name, "id": unique("e"), "data": {"order_id": "c"}}
    assert api.post("/api/events/", body).status_code == 201
    assert TriggerInstance.objects.get(pk=trigger_id).status == "cancelled"
    # Closed in the cancel's transaction, not left open until its deadline.
    assert EventWait.objects.get(trigger_id=trigger_id).resolved_by == "cancelled"


def test_an_inapp_message_read_over_the_feed_api_resumes_its_run_on_the_stack(e2e):
    """Knock's example on the real stack: an in-app message, up to an hour for it to be read,
    else a reminder; the recipient's browser marks it read over the feed API."""
    workflow = WorkflowFactory(
        definition={
            "entry_node_id": "bell",
            "nodes": [
                {"id": "bell", "type": "inapp", "title": "Hi {{ payload.name }}", "body": "Hi"},
                {
                    "id": "read",
                    "type": "wait_event",
                    "message": "bell",
                    "event": "message.read",
                    "timeout": "1h",
                },
                delay_node("thanks", delay_ms=0),
                delay_node("remind", delay_ms=0),
            ],
            "edges": [
                {"from": "bell", "to": "read"},
                {"from": "read", "to": "thanks", "when": "vars.read.received"},
                {"from": "read", "to": "remind", "when": "vars.read.timed_out"},
            ],
        }
    )
    recipient = Recipient.objects.create(key=unique("person")).key
    request = TriggerRequest(workflow.key, unique("k"), {"name": "Ada"}, recipient=recipient)
    ((trigger, _),) = triggers_create([request])
    trigger_id = str(trigger.pk)
    waiting(trigger_id)
    message = InboxMessage.objects.get(trigger_id=trigger_id, node_id="bell")
    answer = requests.post(
        f"{e2e.base_url}/api/inbox/mark/",
        json={"ids": [str(message.pk)], "as": "read"},
        headers=stack_headers(recipient),
        timeout=10,
    )
    assert (answer.status_code, answer.json()["marked"]) == (200, [str(message.pk)])
    done = wait_terminal(trigger_id)
    assert done.status == "completed"
    assert done.vars["read"]["received"] is True
    assert done.vars["read"]["event"]["data"]["state"] == "read"
    nodes = set(
        TriggerEvent.objects.filter(trigger_id=trigger_id).values_list("node_id", flat=True)
    )
    assert "thanks" in nodes and "remind" not in nodes


def test_the_operator_reports_an_open_and_the_waiting_run_takes_the_opened_branch(api):
    """The local way to try an "opened" branch (issue 44: make run's mail catcher reports
    nothing): `manage.py report_delivery`, then the stack's worker runs the rest."""
    from io import StringIO

    from django.core.management import CommandError, call_command

    workflow = WorkflowFactory(
        definition={
            "entry_node_id": "welcome",
            "nodes": [
                {"id": "welcome", "type": "email", "to": "{{ payload.email }}", "subject": "Hi",
                 "body": "b"},
                {"id": "opened", "type": "wait_event", "message": "welcome",
                 "event": "message.opened", "timeout": "1h"},
                delay_node("thanks", delay_ms=0),
                delay_node("nudge", delay_ms=0),
            ],
            "edges": [
                {"from": "welcome", "to": "opened"},
                {"from": "opened", "to": "thanks", "when": "vars.opened.received"},
                {"from": "opened", "to": "nudge"},
            ],
        }
    )  # fmt: skip
    address = f"ok-{unique()}@example.com"
    trigger_id = fire(api, workflow, {"email": address})
    waiting(trigger_id)

    with pytest.raises(CommandError, match="has sent no message at node 'nope'"):
        call_command("report_delivery", trigger_id, "nope", "opened")
    out = StringIO()
    call_command("report_delivery", trigger_id, "welcome", "opened", stdout=out)
    assert f"Recorded opened for {address}" in out.getvalue()

    done = wait_terminal(trigger_id)
    assert done.status == "completed" and done.vars["opened"]["received"] is True
    assert route(trigger_id) == "thanks"
