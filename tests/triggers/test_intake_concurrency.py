"""The inbox holds under concurrency: over HTTP, against gunicorn, not the test client."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node
from triggers.models import TriggerInstance

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
