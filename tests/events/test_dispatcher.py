"""The dispatcher in-process against the real receiver: leases, fencing, giving up, disabling."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.db import connection
from django.utils import timezone

from events.models import DeliveryStatus, WebhookAttempt, WebhookDelivery
from events.services.attempts import ABANDONED
from events.services.dispatcher import (
    deliveries_sweep,
    delivery_claim,
    delivery_record,
    delivery_send,
    event_resend,
)
from events.services.endpoints import endpoint_ping
from events.services.sender import PostResult
from tests.events.support import endpoint_on

pytestmark = [pytest.mark.django_db]


def pinged(receiver, kind="ok"):
    endpoint, path = endpoint_on(receiver, kind)
    return endpoint, path, endpoint_ping(endpoint).deliveries.get()


def test_a_delivery_leased_by_one_worker_is_not_claimed_by_another(receiver):
    _, _, delivery = pinged(receiver)
    assert delivery_claim(delivery.pk, worker_id="a") is not None
    assert delivery_claim(delivery.pk, worker_id="b") is None
    assert delivery_send(delivery.pk, worker_id="b") is None


def test_an_outcome_under_a_lost_lease_is_logged_but_changes_nothing(receiver):
    _, _, delivery = pinged(receiver)
    stale = delivery_claim(delivery.pk, worker_id="a")
    WebhookDelivery.objects.filter(pk=delivery.pk).update(lease_until=timezone.now())
    fresh = delivery_claim(delivery.pk, worker_id="b")
    assert stale and fresh
    assert delivery_record(stale, PostResult(200, "", 5)) is None
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING and delivery.leased_by == fresh.token
    # Both attempts are on record; the stale one as the reclaim found it (never finished), not
    # as its late outcome claims.
    first, second = WebhookAttempt.objects.filter(delivery_id=delivery.pk).order_by("attempt")
    assert (first.state, first.status_code, first.error) == ("finished", None, ABANDONED)
    assert second.state == "started"
    assert delivery_record(fresh, PostResult(200, "", 5)) == DeliveryStatus.DELIVERED
    second.refresh_from_db()
    assert (second.state, second.status_code) == ("finished", 200)


def test_failed_events_in_a_row_disable_the_endpoint_and_a_success_resets_the_count(
    settings, receiver
):
    settings.NOTIFLOW_WEBHOOK_MAX_ATTEMPTS = 1
    settings.NOTIFLOW_WEBHOOK_DISABLE_AFTER = 3
    endpoint, _ = endpoint_on(receiver, "fail")
    for expected in (1, 2):
        delivery = endpoint_ping(endpoint).deliveries.get()
        assert delivery_send(delivery.pk, worker_id="w") == DeliveryStatus.FAILED
        endpoint.refresh_from_db()
        assert endpoint.failed_events == expected and endpoint.enabled
    # A success in between starts the count again.
    type(endpoint).objects.filter(pk=endpoint.pk).update(url=receiver.url("/ok/reset"))
    delivery = endpoint_ping(endpoint).deliveries.get()
    assert delivery_send(delivery.pk, worker_id="w") == DeliveryStatus.DELIVERED
    endpoint.refresh_from_db()
    assert endpoint.failed_events == 0
    type(endpoint).objects.filter(pk=endpoint.pk).update(url=receiver.url("/fail/again"))
    for _ in range(3):
        delivery_send(endpoint_ping(endpoint).deliveries.get().pk, worker_id="w")
    endpoint.refresh_from_db()
    assert not endpoint.enabled and "3 events in a row" in endpoint.disabled_reason
    # Disabled: its next event waits, unclaimed, for it to be enabled.
    waiting = endpoint_ping(endpoint).deliveries.get()
    assert delivery_send(waiting.pk, worker_id="w") is None
    assert deliveries_sweep() == 0


def test_a_retry_waits_its_backoff_and_the_sweeper_finds_it_when_due(settings, receiver):
    settings.NOTIFLOW_WEBHOOK_RETRY_BASE_SECONDS = 1000
    _, _, delivery = pinged(receiver, "fail1")
    assert delivery_send(delivery.pk, worker_id="w") == DeliveryStatus.PENDING
    delivery.refresh_from_db()
    assert delivery.available_at > timezone.now() + timedelta(seconds=900)
    assert delivery_send(delivery.pk, worker_id="w") is None  # not due
    WebhookDelivery.objects.filter(pk=delivery.pk).update(available_at=timezone.now())
    assert deliveries_sweep() >= 1
    assert delivery_send(delivery.pk, worker_id="w") == DeliveryStatus.DELIVERED


def test_resend_delivers_a_delivered_event_again_with_the_same_id(receiver):
    _, path, delivery = pinged(receiver)
    assert delivery_send(delivery.pk, worker_id="w") == DeliveryStatus.DELIVERED
    assert event_resend(delivery.event_id) == [delivery.pk]
    assert delivery_send(delivery.pk, worker_id="w") == DeliveryStatus.DELIVERED
    first, second = receiver.received(path)
    assert first.webhook_id == second.webhook_id == str(delivery.event.event_id)


def test_the_sweeper_renudges_a_waiting_delivery_only_while_the_queue_is_short(
    settings, receiver, monkeypatch
):
    from common import leased_work

    settings.NOTIFLOW_RENUDGE_AFTER_SECONDS = 30
    _, _, delivery = pinged(receiver)  # nudged when it was written, a minute ago
    minute_ago = timezone.now() - timedelta(minutes=1)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        available_at=minute_ago, nudged_at=minute_ago
    )
    line = {"length": 5000}
    monkeypatch.setattr(leased_work, "nudges_waiting", lambda queues: line["length"])
    assert deliveries_sweep(batch=10) == 0  # a long line: its nudge is most likely in it
    line["length"] = 3
    assert deliveries_sweep(batch=10) == 1  # a short one: presumed lost, sent again
    # A delivery never nudged (or whose lease expired: a claim clears nudged_at) goes anyway.
    WebhookDelivery.objects.filter(pk=delivery.pk).update(nudged_at=None)
    line["length"] = 5000
    assert deliveries_sweep(batch=10) == 1


def test_a_webhook_retry_and_lease_are_due_on_the_databases_clock(settings, receiver):
    """docs/design/rules.md, rule 15 (one clock): the worker's clock an hour ahead moves neither."""
    settings.NOTIFLOW_WEBHOOK_RETRY_BASE_SECONDS = 30
    settings.NOTIFLOW_RETRY_JITTER = 0
    _, _, delivery = pinged(receiver)
    with connection.cursor() as cursor:
        cursor.execute("SELECT now()")
        (db_now,) = cursor.fetchone()
    ahead = timezone.now() + timedelta(hours=1)
    close = timedelta(seconds=5)
    with mock.patch("django.utils.timezone.now", return_value=ahead):
        claimed = delivery_claim(delivery.pk, worker_id="a")
        assert claimed is not None
        delivery.refresh_from_db()
        lease = timedelta(seconds=settings.NOTIFLOW_LEASE_SECONDS)
        assert abs(delivery.lease_until - (db_now + lease)) < close
        assert delivery_record(claimed, PostResult(500, "", 5)) == DeliveryStatus.PENDING
    delivery.refresh_from_db()
    assert abs(delivery.available_at - (db_now + timedelta(seconds=30))) < close


def test_a_ping_is_nudged_at_the_databases_now(receiver):
    """The sweeper re-nudges a lost nudge by `nudged_at` against now(): a worker's clock ahead
    must not put it in the future."""
    endpoint, _ = endpoint_on(receiver)
    with mock.patch("django.utils.timezone.now", return_value=timezone.now() + timedelta(hours=1)):
        delivery = endpoint_ping(endpoint).deliveries.get()
    with connection.cursor() as cursor:
        cursor.execute("SELECT now()")
        (db_now,) = cursor.fetchone()
    assert abs(delivery.nudged_at - db_now) < timedelta(seconds=5)
