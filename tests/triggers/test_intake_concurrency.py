"""The inbox holds under concurrency: over HTTP, against gunicorn, not the test client."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.db import connection

from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node
from triggers.models import TriggerInstance
from triggers.services import TriggerRejected, TriggerRequest, triggers_create

pytestmark = pytest.mark.e2e


def test_twenty_simultaneous_requests_with_one_key_create_one_trigger(api, e2e):
    workflow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=0)))
    key = unique("same")
    body = {"workflow": workflow.key, "idempotency_key": key, "payload": {"n": 1}}
    start = threading.Barrier(20)

    def fire(_: int) -> requests.Response:
        session = requests.Session()  # one connection per thread, all racing
        session.headers.update(api.session.headers)
        start.wait(timeout=10)
        return session.post(f"{e2e.base_url}/api/triggers/", json=body, timeout=20)

    with ThreadPoolExecutor(max_workers=20) as pool:
        responses = list(pool.map(fire, range(20)))

    codes = sorted(r.status_code for r in responses)
    assert codes == [200] * 19 + [201], codes
    assert len({r.json()["id"] for r in responses}) == 1
    assert (
        TriggerInstance.objects.filter(workflow__key=workflow.key, idempotency_key=key).count() == 1
    )


def test_bulk_requests_whose_keys_overlap_in_opposite_orders_all_succeed(
    settings, django_db_setup, django_db_blocker
):
    """Each bulk statement inserts in key order, whatever the request order: two that hold keys
    the other wants wait in one order instead of deadlocking (PostgreSQL then fails one of them
    whole: before the order, this failed 7 of 20 requests)."""
    settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER = False
    # Committed, as the e2e tests' rows are: the threads' connections must see the workflow.
    with django_db_blocker.unblock():
        _overlapping_bulk_requests()


def _overlapping_bulk_requests() -> None:
    workflow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=0)))
    outcomes: list = []

    def create(keys: list[str], start: threading.Barrier) -> None:
        try:
            start.wait(timeout=10)
            outcomes.extend(triggers_create([TriggerRequest(workflow.key, k, {}) for k in keys]))
        finally:
            connection.close()

    for _ in range(5):
        keys = [unique("overlap") for _ in range(500)]
        orders = [keys, keys[::-1], keys, keys[::-1]]
        start = threading.Barrier(len(orders))
        with ThreadPoolExecutor(max_workers=len(orders)) as pool:
            for done in [pool.submit(create, order, start) for order in orders]:
                done.result()  # raises what the thread raised: a deadlock, say

    created = [o for o in outcomes if not isinstance(o, TriggerRejected) and o[1]]
    assert len(outcomes) == 5 * 4 * 500 and len(created) == 5 * 500
    assert TriggerInstance.objects.filter(workflow=workflow).count() == 5 * 500
