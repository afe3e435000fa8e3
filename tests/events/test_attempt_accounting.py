"""Issue 31, in-process: every attempt that began is on record, an attempt whose worker died
counts as a failed one (so the attempt cap and the disable rule hold), and one endpoint has a
bounded number of deliveries in flight."""

from __future__ import annotations

from datetime import timedelta

import pytest
from billiard.exceptions import SoftTimeLimitExceeded
from django.db import connection, transaction
from django.db.utils import ProgrammingError
from django.utils import timezone

from events.models import AttemptState, DeliveryStatus, WebhookAttempt, WebhookDelivery
from events.services import dispatcher
from events.services.attempts import ABANDONED
from events.services.dispatcher import (
    deliveries_sweep,
    delivery_claim,
    delivery_record,
    delivery_send,
)
from events.services.endpoints import endpoint_ping
from events.services.sender import PostResult
from tests.events.support import endpoint_on

pytestmark = [pytest.mark.django_db]


def lease_expires(delivery: WebhookDelivery) -> None:
    """What the passing of NOTIFLOW_LEASE_SECONDS does to a delivery whose worker died."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        lease_until=timezone.now() - timedelta(seconds=1)
    )


def test_the_attempt_is_on_record_as_started_before_the_post_outside_the_claims_transaction(
    receiver, monkeypatch
):
    endpoint, _ = endpoint_on(receiver)
    delivery = endpoint_ping(endpoint).deliveries.get()
    depth = len(connection.atomic_blocks)  # the test's own
    seen: dict[str, object] = {}

    def post(**kwargs):
        seen["attempts"] = list(
            WebhookAttempt.objects.filter(delivery_id=delivery.pk).values_list("attempt", "state")
        )
        seen["transactions"] = len(connection.atomic_blocks) - depth
        return PostResult(200, "", 3)

    monkeypatch.setattr(dispatcher, "post_signed", post)
    assert delivery_send(delivery.pk, worker_id="w") == DeliveryStatus.DELIVERED
    assert seen == {"attempts": [(1, AttemptState.STARTED)], "transactions": 0}
    (attempt,) = WebhookAttempt.objects.filter(delivery_id=delivery.pk)
    assert (attempt.state, attempt.status_code, attempt.duration_ms) == ("finished", 200, 3)


def test_attempts_whose_worker_died_count_as_failed_and_the_cap_and_disable_rule_hold(
    settings, receiver
):
    settings.NOTIFLOW_WEBHOOK_MAX_ATTEMPTS = 2
    settings.NOTIFLOW_WEBHOOK_DISABLE_AFTER = 1
    # A receiver that would accept the event: only the accounting can stop a third POST.
    endpoint, path = endpoint_on(receiver, "ok")
    delivery = endpoint_ping(endpoint).deliveries.get()
    for worker in ("a", "b"):  # each claims, records its attempt as started, and dies mid-POST
        assert delivery_claim(delivery.pk, worker_id=worker) is not None
        lease_expires(delivery)
    assert deliveries_sweep() >= 1  # the sweeper picks the delivery up again

    assert delivery_send(delivery.pk, worker_id="c") is None  # no third POST
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED and delivery.attempts == 2
    assert (delivery.last_status_code, delivery.last_error) == (None, ABANDONED)
    assert (delivery.lease_until, delivery.leased_by) == (None, "")
    attempts = WebhookAttempt.objects.filter(delivery_id=delivery.pk).order_by("attempt")
    assert [(a.attempt, a.state, a.status_code, a.error) for a in attempts] == [
        (1, "finished", None, ABANDONED),
        (2, "finished", None, ABANDONED),
    ]
    endpoint.refresh_from_db()
    assert endpoint.failed_events == 1 and not endpoint.enabled
    assert "1 events in a row" in endpoint.disabled_reason
    assert receiver.received(path) == []


def test_an_attempt_whose_worker_died_below_the_cap_is_one_failed_attempt_then_retried(
    settings, receiver
):
    settings.NOTIFLOW_WEBHOOK_MAX_ATTEMPTS = 3
    endpoint, path = endpoint_on(receiver, "ok")
    delivery = endpoint_ping(endpoint).deliveries.get()
    assert delivery_claim(delivery.pk, worker_id="dies") is not None
    lease_expires(delivery)
    assert delivery_send(delivery.pk, worker_id="lives") == DeliveryStatus.DELIVERED
    delivery.refresh_from_db()
    assert delivery.attempts == 2
    attempts = WebhookAttempt.objects.filter(delivery_id=delivery.pk).order_by("attempt")
    assert [(a.attempt, a.status_code, a.error) for a in attempts] == [
        (1, None, ABANDONED),
        (2, 200, ""),
    ]
    assert len(receiver.received(path)) == 1


def test_a_post_stopped_by_the_soft_time_limit_is_still_a_recorded_failed_attempt(
    receiver, monkeypatch
):
    endpoint, _ = endpoint_on(receiver)
    delivery = endpoint_ping(endpoint).deliveries.get()

    def post(**kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(dispatcher, "post_signed", post)
    assert delivery_send(delivery.pk, worker_id="w") == DeliveryStatus.PENDING
    (attempt,) = WebhookAttempt.objects.filter(delivery_id=delivery.pk)
    assert attempt.state == "finished" and attempt.error.startswith("SoftTimeLimitExceeded")
    delivery.refresh_from_db()
    assert delivery.leased_by == "" and delivery.last_error.startswith("SoftTimeLimitExceeded")


def test_one_endpoint_has_at_most_its_concurrency_of_deliveries_in_flight(settings, receiver):
    settings.NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY = 1
    settings.NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS = 2
    slow, _ = endpoint_on(receiver)
    first, second = (endpoint_ping(slow).deliveries.get() for _ in range(2))
    other = endpoint_ping(endpoint_on(receiver)[0]).deliveries.get()

    held = delivery_claim(first.pk, worker_id="a")
    assert held is not None
    assert delivery_claim(second.pk, worker_id="b") is None  # deferred, not claimed
    second.refresh_from_db()
    assert second.attempts == 0 and second.leased_by == "" and second.nudged_at is not None
    assert timezone.now() + timedelta(seconds=1) < second.available_at
    assert not WebhookAttempt.objects.filter(delivery_id=second.pk).exists()
    assert delivery_claim(other.pk, worker_id="b") is not None  # other endpoints go on

    assert delivery_record(held, PostResult(200, "", 5)) == DeliveryStatus.DELIVERED
    WebhookDelivery.objects.filter(pk=second.pk).update(available_at=timezone.now())
    assert delivery_claim(second.pk, worker_id="b") is not None  # the slot is free again


def test_a_finished_attempt_is_append_only(receiver):
    endpoint, _ = endpoint_on(receiver)
    delivery = endpoint_ping(endpoint).deliveries.get()
    claimed = delivery_claim(delivery.pk, worker_id="w")
    assert claimed is not None
    started = WebhookAttempt.objects.filter(pk=claimed.attempt_id)
    with pytest.raises(ProgrammingError, match="append-only"), transaction.atomic():
        started.update(state=AttemptState.FINISHED, attempt=7)  # not its identity
    delivery_record(claimed, PostResult(500, "", 5))
    with pytest.raises(ProgrammingError, match="append-only"), transaction.atomic():
        started.update(status_code=200)
    with pytest.raises(ProgrammingError, match="append-only"), transaction.atomic():
        started.update(state=AttemptState.STARTED)
    assert started.get().status_code == 500
