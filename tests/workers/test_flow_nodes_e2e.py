"""Timing and flow-control nodes end to end: real gunicorn, two Celery workers, beat, PostgreSQL,
Redis and SMTP; many runs arriving at once through the bulk API."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from tests.conftest import sms_outbox, unique
from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.support.stack import wait_for
from tests.workers.helpers import fire, wait_terminal
from triggers.models import TriggerInstance
from workers.models import Digest, DigestEntry, StepExecutionLog
from workflows.nodes import NODE_TYPES
from workflows.semantics import execution_context

CLOSE = timedelta(seconds=5)  # the step's duration, and slack for a loaded machine

pytestmark = pytest.mark.e2e

BULK = "/api/triggers/bulk/"


def fire_many(api, workflow, payloads) -> list[str]:
    """All at once: one bulk request, every run nudged in the same moment."""
    items = [
        {"workflow": workflow.key, "idempotency_key": unique("k"), "payload": payload}
        for payload in payloads
    ]
    response = api.post(BULK, {"triggers": items})
    assert response.status_code == 200, response.text
    return [result["trigger"]["id"] for result in response.json()["results"]]


def steps_of(trigger_id, node_id):
    return list(
        StepExecutionLog.objects.filter(trigger_id=trigger_id, node_id=node_id).order_by("id")
    )


def test_a_delay_until_a_time_in_the_payload(api, e2e, smtp_server):
    workflow = WorkflowFactory(
        definition=chain(
            {"id": "later", "type": "delay", "until": "{{ payload.at }}"}, email_node("mail")
        )
    )
    at = timezone.now() + timedelta(seconds=2)
    soon = fire(api, workflow, {"email": "a@example.com", "name": "A", "at": at.isoformat()})
    past = fire(api, workflow, {"email": "b@example.com", "name": "B", "at": "2020-01-01T00:00Z"})
    bad = fire(api, workflow, {"email": "c@example.com", "name": "C", "at": "in a while"})

    assert wait_terminal(past).status == "completed"
    assert wait_terminal(soon).status == "completed"
    (mail_step,) = steps_of(soon, "mail")
    assert mail_step.started_at >= at
    failed = wait_terminal(bad)
    assert failed.status == "failed" and failed.attempts == 1
    assert "'in a while' is not an ISO-8601 timestamp" in failed.last_error


def test_a_send_window_passes_inside_and_waits_outside_until_it_opens(api, e2e, smtp_server):
    now = datetime.now(UTC)
    # Open now: from the hour before to the hour after (past midnight when it must be).
    inside = {
        "id": "hours",
        "type": "window",
        "timezone": "{{ payload.tz }}",
        "start": (now - timedelta(hours=1)).strftime("%H:00"),
        "end": (now + timedelta(hours=2)).strftime("%H:00"),
    }
    closed = {**inside, "start": inside["end"], "end": (now + timedelta(hours=3)).strftime("%H:00")}
    open_workflow = WorkflowFactory(definition=chain(inside, email_node("mail")))
    closed_workflow = WorkflowFactory(definition=chain(closed, email_node("mail")))
    payload = {"email": "w@example.com", "name": "W", "tz": "UTC"}

    assert wait_terminal(fire(api, open_workflow, payload)).status == "completed"

    waiting_id = fire(api, closed_workflow, payload)
    waiting = wait_for_node(waiting_id, "mail")
    log = steps_of(waiting_id, "hours")[0]
    expected = NODE_TYPES["window"].wait(
        closed,
        execution_context(payload=payload, vars={}, trigger={}, workflow={}, now=now),
        log.started_at,
    )
    # The wait to the opening, added to the database's clock by the release (rule 15).
    assert waiting.status == "enqueued" and abs(waiting.available_at - expected.resume_at) < CLOSE
    assert log.output["open"] is False and log.output["opens_at"] == expected.output["opens_at"]

    unknown = wait_terminal(fire(api, open_workflow, {**payload, "tz": "Atlantis/Capital"}))
    assert unknown.status == "failed" and "'Atlantis/Capital' is not an IANA" in unknown.last_error


def wait_for_node(trigger_id, node_id) -> TriggerInstance:
    def there():
        trigger = TriggerInstance.objects.get(pk=trigger_id)
        return trigger if trigger.current_node_id == node_id else None

    return wait_for(there, timeout=30, interval=0.05, message=f"{trigger_id} at {node_id}")


def test_fifty_runs_at_once_through_a_throttle_of_three_let_exactly_three_through(
    api, e2e, smtp_server
):
    workflow = WorkflowFactory(
        definition={
            "entry_node_id": "cap",
            "nodes": [
                {
                    "id": "cap",
                    "type": "throttle",
                    "key": "{{ payload.user }}",
                    "limit": 3,
                    "window": "1h",
                },
                sms_node("text"),
                email_node("note", subject="You have messages waiting"),
            ],
            "edges": [
                {"from": "cap", "to": "text"},
                {"from": "cap", "to": "note", "when": "vars.throttle_cap.throttled"},
            ],
        }
    )
    user = unique("user")
    payload = {"user": user, "phone": "+15550142", "email": f"{user}@example.com", "name": "T"}
    ids = fire_many(api, workflow, [payload] * 50)

    finals = [wait_terminal(trigger_id, timeout=60) for trigger_id in ids]
    assert {trigger.status for trigger in finals} == {"completed"}
    texts = [m for m in sms_outbox(e2e) if m["idempotency_key"].split(":")[0] in set(ids)]
    assert len(texts) == 3
    throttled = [t for t in finals if t.vars["throttle_cap"]["throttled"]]
    assert len(throttled) == 47 and all("note" in str(t.vars) for t in throttled)
    assert len(smtp_server.handler.to(f"{user}@example.com")) == 47


def test_runs_with_one_key_are_gathered_into_one_digest_sent_once(api, e2e, smtp_server):
    workflow = WorkflowFactory(
        definition=chain(
            {"id": "batch", "type": "digest", "key": "{{ payload.user }}", "window": "3s"},
            email_node(
                "mail",
                to="{{ payload.email }}",
                subject="{{ vars.digest_batch.count }} new comments",
                body="{% for e in vars.digest_batch.events %}{{ e.comment }}\n{% endfor %}",
            ),
        )
    )
    ada, bob = unique("ada"), unique("bob")
    payloads = [
        {"user": ada, "email": f"{ada}@example.com", "name": "A", "comment": f"c{n}"}
        for n in range(6)
    ]
    payloads += [{"user": bob, "email": f"{bob}@example.com", "name": "B", "comment": "only"}]
    ids = fire_many(api, workflow, payloads)

    finals = {trigger_id: wait_terminal(trigger_id, timeout=60) for trigger_id in ids}
    assert {trigger.status for trigger in finals.values()} == {"completed"}
    (to_ada,) = smtp_server.handler.to(f"{ada}@example.com")
    (to_bob,) = smtp_server.handler.to(f"{bob}@example.com")
    assert to_ada.subject == "6 new comments" and to_bob.subject == "1 new comments"
    assert sorted(to_ada.body.split()) == [f"c{n}" for n in range(6)]
    # Every run is in exactly one digest; the five that joined say which one.
    entries = DigestEntry.objects.filter(trigger_id__in=ids)
    assert entries.count() == 7
    digest = Digest.objects.get(key=ada, workflow=workflow)
    for trigger_id in ids[1:6]:
        entry = DigestEntry.objects.get(trigger_id=trigger_id)
        if str(entry.digest.opener_id) != trigger_id:
            assert steps_of(trigger_id, "batch")[-1].output["joined"] == str(digest.pk)
            assert not steps_of(trigger_id, "mail")

    # After the window, the next run opens the next digest.
    late = wait_terminal(fire(api, workflow, payloads[0]), timeout=30)
    assert late.vars["digest_batch"]["count"] == 1
    assert len(smtp_server.handler.to(f"{ada}@example.com")) == 2


def test_cancelling_runs_that_wait_at_a_window_or_a_digest(api, e2e, smtp_server):
    """The operator's cancel, then the workers: a run waiting for a window never sends; a
    cancelled digest opener's digest is joined by nobody after it, and the next run with the key
    opens and sends its own."""
    now = datetime.now(UTC)
    hours = [(now + timedelta(hours=n)).strftime("%H:00") for n in (2, 3)]
    closed = {"id": "hours", "type": "window", "start": hours[0], "end": hours[1]}  # not now
    windowed = WorkflowFactory(definition=chain(closed, email_node("mail")))
    waiting = fire(api, windowed, {"email": "never@example.com", "name": "N"})
    wait_for_node(waiting, "mail")
    assert api.post(f"/api/triggers/{waiting}/cancel/", {}).status_code == 200
    assert wait_terminal(waiting).status == "cancelled"

    digest = WorkflowFactory(
        definition=chain(
            {"id": "batch", "type": "digest", "key": "{{ payload.user }}", "window": "4s"},
            email_node("mail", subject="{{ vars.digest_batch.count }} for {{ payload.name }}"),
        )
    )
    user = unique("user")
    payload = {"user": user, "email": f"{user}@example.com"}
    opener = fire(api, digest, {**payload, "name": "first"})
    wait_for(lambda: Digest.objects.filter(opener_id=opener).exists(), timeout=30, message="open")
    joined = wait_terminal(fire(api, digest, {**payload, "name": "second"}))
    assert joined.status == "completed"
    assert api.post(f"/api/triggers/{opener}/cancel/", {}).status_code == 200
    late = wait_terminal(fire(api, digest, {**payload, "name": "third"}), timeout=30)

    assert late.status == "completed" and late.vars["digest_batch"]["count"] == 1
    assert wait_terminal(opener).status == "cancelled"
    (sent,) = smtp_server.handler.to(f"{user}@example.com")
    assert sent.subject == "1 for third"
    assert not smtp_server.handler.to("never@example.com")


def test_deleting_a_digest_opener_leaves_the_next_run_its_own_digest(api, e2e, smtp_server):
    """The operator's soft delete, then the workers: the deleted opener's digest is joined by
    nobody after it; the next run with the key opens one of its own and sends it."""
    digest = WorkflowFactory(
        definition=chain(
            {"id": "batch", "type": "digest", "key": "{{ payload.user }}", "window": "4s"},
            email_node("mail", subject="{{ vars.digest_batch.count }} for {{ payload.name }}"),
        )
    )
    user = unique("user")
    payload = {"user": user, "email": f"{user}@example.com"}
    opener = fire(api, digest, {**payload, "name": "first"})
    wait_for(lambda: Digest.objects.filter(opener_id=opener).exists(), timeout=30, message="open")
    response = api.delete(f"/api/triggers/{opener}/", {"reason": "sent by mistake"})
    assert response.status_code == 200, response.text

    late = wait_terminal(fire(api, digest, {**payload, "name": "second"}), timeout=30)

    assert late.status == "completed" and late.vars["digest_batch"]["count"] == 1
    assert Digest.objects.filter(key=user, workflow=digest).count() == 2
    (sent,) = smtp_server.handler.to(f"{user}@example.com")
    assert sent.subject == "1 for second"
