"""The dispatcher against a real receiver, run by the stack's real workers: retries with the
same webhook-id, 410 Gone, giving up, redirects, a worker killed mid-POST, and every kind of
event a run announces."""

from __future__ import annotations

import os
import signal

import pytest

from events.models import DeliveryStatus, WebhookAttempt, WebhookDelivery
from events.services.attempts import ABANDONED
from events.services.dispatcher import endpoint_enable
from tests.conftest import unique
from tests.events.support import endpoint_on, types_of, verified
from tests.factories import WorkflowFactory, chain, delay_node, email_node
from tests.support.stack import wait_for
from tests.workers.helpers import fire, wait_terminal
from triggers.state import trigger_cancel, trigger_delete

pytestmark = pytest.mark.e2e


def mail_workflow(to: str = "{{ payload.email }}"):
    return WorkflowFactory(definition=chain(email_node("mail", to=to)))


def settled(endpoint, count: int, timeout: float = 30) -> list[WebhookDelivery]:
    """The endpoint's deliveries once `count` of them are delivered or failed."""

    def done():
        rows = list(WebhookDelivery.objects.filter(endpoint=endpoint).select_related("event"))
        over = [d for d in rows if d.status != DeliveryStatus.PENDING]
        return rows if len(over) >= count else None

    return wait_for(done, timeout=timeout, interval=0.1, message=f"{count} deliveries settled")


def test_a_500_is_retried_with_the_same_webhook_id_until_it_succeeds(api, receiver):
    workflow = mail_workflow()
    endpoint, path = endpoint_on(
        receiver, "fail2", events=["trigger.completed"], workflows=[workflow.key]
    )
    trigger_id = fire(api, workflow, {"email": f"ok-{unique()}@example.com", "name": "Al"})

    got = receiver.wait_for(path, 3)
    assert len({request.webhook_id for request in got}) == 1
    assert len({request.body for request in got}) == 1  # the same event, byte for byte
    for request in got:
        assert verified(request, endpoint.secret)["subject"] == trigger_id
    (delivery,) = settled(endpoint, 1)
    assert delivery.status == DeliveryStatus.DELIVERED and delivery.attempts == 3
    codes = WebhookAttempt.objects.filter(delivery=delivery).order_by("attempt")
    assert [a.status_code for a in codes] == [500, 500, 200]


def test_a_receiver_that_keeps_failing_gets_the_event_max_attempts_times_then_failed(api, receiver):
    workflow = mail_workflow()
    endpoint, path = endpoint_on(
        receiver, "fail", events=["trigger.completed"], workflows=[workflow.key]
    )
    fire(api, workflow, {"email": f"ok-{unique()}@example.com", "name": "Al"})

    (delivery,) = settled(endpoint, 1)
    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.attempts == 4 == len(receiver.received(path))  # NOTIFLOW_WEBHOOK_MAX_ATTEMPTS
    assert delivery.last_status_code == 500 and delivery.last_error == "HTTP 500"
    endpoint.refresh_from_db()
    assert endpoint.failed_events == 1 and endpoint.enabled


def test_410_gone_disables_the_endpoint_and_keeps_the_event_for_when_it_is_enabled(api, receiver):
    workflow = mail_workflow()
    endpoint, path = endpoint_on(
        receiver, "gone", events=["trigger.completed"], workflows=[workflow.key]
    )
    trigger_id = fire(api, workflow, {"email": f"ok-{unique()}@example.com", "name": "Al"})
    receiver.wait_for(path, 1)

    endpoint = wait_for(
        lambda: type(endpoint).objects.filter(pk=endpoint.pk, disabled_at__isnull=False).first(),
        timeout=10,
        message="endpoint disabled",
    )
    assert "410" in endpoint.disabled_reason
    (delivery,) = WebhookDelivery.objects.filter(endpoint=endpoint)
    assert delivery.status == DeliveryStatus.PENDING and len(receiver.received(path)) == 1

    # The receiver is back (moved to a path that answers 200); enabling delivers what it kept.
    type(endpoint).objects.filter(pk=endpoint.pk).update(url=receiver.url(f"/ok{path}"))
    endpoint_enable(endpoint.pk)
    (request,) = receiver.wait_for(f"/ok{path}", 1)
    assert verified(request, endpoint.secret)["subject"] == trigger_id
    assert request.webhook_id == receiver.received(path)[0].webhook_id
    (delivery,) = settled(endpoint, 1)
    assert delivery.status == DeliveryStatus.DELIVERED


def test_a_redirect_is_not_followed(api, receiver):
    workflow = mail_workflow()
    endpoint, path = endpoint_on(
        receiver, "redirect", events=["trigger.completed"], workflows=[workflow.key]
    )
    fire(api, workflow, {"email": f"ok-{unique()}@example.com", "name": "Al"})
    receiver.wait_for(path, 2)
    assert receiver.received("/ok/redirected") == []
    # The first attempt was over before the second began (the newest may still be under way).
    attempt = WebhookAttempt.objects.filter(endpoint_id=endpoint.pk).order_by("attempt").first()
    assert attempt is not None and (attempt.state, attempt.status_code) == ("finished", 302)


def test_events_go_only_to_the_endpoints_that_subscribe(api, receiver):
    workflow, other = mail_workflow(), mail_workflow()
    _, all_path = endpoint_on(receiver)
    failures, failures_path = endpoint_on(
        receiver, events=["trigger.failed"], workflows=[workflow.key]
    )
    of_other, other_path = endpoint_on(receiver, workflows=[other.key])
    _, this_path = endpoint_on(receiver, events=["trigger.completed"], workflows=[workflow.key])

    trigger_id = fire(api, workflow, {"email": f"ok-{unique()}@example.com", "name": "Al"})
    wait_terminal(trigger_id)
    # The endpoint for every event may also hear of another test's run finishing late.
    assert sorted(types_of(receiver.wait_for(all_path, 2, about=trigger_id))) == [
        "notiflow.message.sent",
        "notiflow.trigger.completed",
    ]
    assert types_of(receiver.wait_for(this_path, 1)) == ["notiflow.trigger.completed"]
    assert not WebhookDelivery.objects.filter(endpoint__in=[failures, of_other]).exists()
    assert receiver.received(failures_path) == receiver.received(other_path) == []


def test_every_change_of_a_run_is_announced(api, receiver, smtp_server):
    workflow = mail_workflow()
    endpoint, path = endpoint_on(receiver, workflows=[workflow.key])
    # defer2-: the SMTP server answers 451 twice, then accepts: two retried steps, then a send.
    retried = fire(api, workflow, {"email": f"defer2-{unique()}@example.com", "name": "Al"})
    rejected = fire(api, workflow, {"email": f"reject-{unique()}@example.com", "name": "Al"})
    assert wait_terminal(retried).status == "completed"
    assert wait_terminal(rejected).status == "failed"

    got = receiver.wait_for(path, 5)
    by_trigger: dict[str, list[dict]] = {}
    for request in got:
        event = verified(request, endpoint.secret)
        by_trigger.setdefault(event["subject"], []).append(event)
    ordered = {k: sorted(v, key=lambda e: e["data"]["sequence"]) for k, v in by_trigger.items()}
    assert [e["type"] for e in ordered[retried]] == [
        "notiflow.step.failed",
        "notiflow.step.failed",
        "notiflow.message.sent",
        "notiflow.trigger.completed",
    ]
    first_failure = ordered[retried][0]["data"]["step"]
    assert first_failure["attempt"] == 1 and first_failure["node_id"] == "mail"
    assert "451" in first_failure["error"] and first_failure["retry_at"]
    assert ordered[retried][0]["data"]["trigger"]["status"] == "enqueued"
    (failed,) = ordered[rejected]
    assert failed["type"] == "notiflow.trigger.failed"
    assert "550" in failed["data"]["step"]["error"]
    assert failed["data"]["trigger"]["status"] == "failed"


def test_cancel_and_delete_are_announced(api, receiver):
    workflow = WorkflowFactory(definition=chain(delay_node(delay_ms=600_000), email_node("mail")))
    endpoint, path = endpoint_on(
        receiver, events=["trigger.cancelled", "trigger.deleted"], workflows=[workflow.key]
    )
    trigger_id = fire(api, workflow, {})
    trigger_cancel(trigger_id=trigger_id, actor="test", reason="no longer needed")
    trigger_delete(trigger_id=trigger_id, actor="test", reason="cleanup")

    got = sorted(receiver.wait_for(path, 2), key=lambda r: r.event["data"]["sequence"])
    cancelled, deleted = (verified(request, endpoint.secret) for request in got)
    assert cancelled["type"] == "notiflow.trigger.cancelled"
    assert cancelled["data"]["trigger"]["status"] == "cancelled"
    assert deleted["type"] == "notiflow.trigger.deleted"
    assert deleted["data"]["trigger"]["delete_reason"] == "cleanup"


def test_a_worker_killed_mid_post_leaves_the_event_to_be_delivered_again(api, e2e, receiver):
    # hang1: the receiver holds the first request of each webhook-id, so the kill lands while
    # the POST is in flight.
    workflow = mail_workflow()
    endpoint, path = endpoint_on(
        receiver, "hang1", events=["trigger.completed"], workflows=[workflow.key]
    )
    fire(api, workflow, {"email": f"ok-{unique()}@example.com", "name": "Al"})
    receiver.wait_for(path, 1)
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert delivery.leased_by, "the delivery is leased while its POST is in flight"
    victim = int(delivery.leased_by.split("/")[0].rsplit(":", 1)[1])
    os.kill(victim, signal.SIGKILL)

    (delivery,) = settled(endpoint, 1, timeout=40)  # after the lease (8 s) expires
    assert delivery.status == DeliveryStatus.DELIVERED and delivery.attempts == 2
    first, second = receiver.received(path)
    assert first.webhook_id == second.webhook_id and first.body == second.body
    assert verified(second, endpoint.secret)
    # Both attempts are on record: the killed one, started before its POST and found unfinished
    # when the lease expired, as a failure; the one that delivered with its answer.
    attempts = WebhookAttempt.objects.filter(delivery=delivery).order_by("attempt")
    assert [(a.attempt, a.state, a.status_code, a.error) for a in attempts] == [
        (1, "finished", None, ABANDONED),
        (2, "finished", 200, ""),
    ]
