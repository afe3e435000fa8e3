"""A webhook delivery's claim (`notiflow_delivery_claim_v1`, events migration 0004) under real
concurrency, each racer on a connection of its own: one delivery claimed by many has one holder,
and one endpoint's deliveries claimed all at once never have more than its concurrency in flight
(the claims take turns on the endpoint's row)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.db.models.functions import Now

from events import catalog
from events.models import OutboxEvent, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from events.services.dispatcher import delivery_claim
from tests.events.support import endpoint_on


@pytest.fixture(autouse=True)
def committed(django_db_setup, django_db_blocker):
    """This test's writes committed, as the racers' own connections must see them (the
    endpoint, and its deliveries with it, is deleted afterwards: tests/events/conftest.py)."""
    with django_db_blocker.unblock():
        yield


def deliveries_to(endpoint: WebhookEndpoint, count: int) -> list[int]:
    """Pending deliveries written without a nudge ("nudged" now): the race is the racers' only."""
    return [
        WebhookDelivery.objects.create(
            event=OutboxEvent.objects.create(type=catalog.PING, data={"n": n}),
            endpoint=endpoint,
            nudged_at=Now(),
        ).pk
        for n in range(count)
    ]


def race(claims: list[Callable[[], Any]]) -> list[Any]:
    """Run every claim at once, each in a thread with its own connection; their results."""
    test_database = connection.settings_dict["NAME"]
    start = threading.Barrier(len(claims))
    results: list[Any] = [None] * len(claims)
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            # pytest-django points only the main thread's connection at the test database.
            connection.settings_dict["NAME"] = test_database
            start.wait(timeout=10)
            results[n] = claims[n]()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(claims))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    assert not any(thread.is_alive() for thread in threads)
    return results


def test_one_delivery_claimed_by_eight_racers_has_one_holder_and_one_attempt(receiver):
    endpoint, _ = endpoint_on(receiver)
    (delivery_id,) = deliveries_to(endpoint, 1)
    won = race([lambda n=n: delivery_claim(delivery_id, worker_id=f"racer{n}") for n in range(8)])
    holders = [claimed for claimed in won if claimed is not None]
    assert len(holders) == 1
    delivery = WebhookDelivery.objects.get(pk=delivery_id)
    assert (delivery.attempts, delivery.leased_by) == (1, holders[0].token)
    assert WebhookAttempt.objects.filter(delivery_id=delivery_id).count() == 1


def test_an_endpoints_deliveries_claimed_at_once_hold_at_most_its_concurrency(settings, receiver):
    settings.NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY = 2
    endpoint, _ = endpoint_on(receiver)
    ids = deliveries_to(endpoint, 8)
    won = race([lambda d=d: delivery_claim(d, worker_id=f"racer{d}") for d in ids])
    assert sum(claimed is not None for claimed in won) == 2
    leased = WebhookDelivery.objects.filter(endpoint=endpoint).exclude(leased_by="")
    assert leased.count() == 2
    # The others were deferred by one attempt's deadline, with no attempt on record.
    assert WebhookAttempt.objects.filter(endpoint_id=endpoint.pk).count() == 2
