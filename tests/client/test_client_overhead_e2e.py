"""What the client costs a trigger over a bare httpx POST, on the live stack: 200 triggers each,
interleaved (one of each in turn, so both see the same load on a shared machine), on one kept
connection each. The client adds building the call, its key and the typed `Run`; the bound is
loose, the numbers are printed (`pytest -s`) and quoted in docs/performance/elsewhere.md."""

from __future__ import annotations

import statistics
import time
import uuid

import httpx
import pytest
from notiflow_client import Notiflow

from tests.client.test_client_e2e import WAITING, workflow_create

pytestmark = pytest.mark.e2e
TRIGGERS = 200


@pytest.mark.alone  # a latency bound: run with the machine to itself
def test_a_trigger_through_the_client_costs_about_what_a_bare_post_costs(e2e):
    key = e2e.env["API_KEY"]
    with (
        Notiflow(e2e.base_url, key) as notiflow,
        httpx.Client(
            base_url=e2e.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=10
        ) as raw,
    ):
        workflow = workflow_create(notiflow, *WAITING)
        cancel = uuid.uuid4().hex
        through_client: list[float] = []
        bare: list[float] = []
        for index in range(TRIGGERS):
            start = time.perf_counter()
            notiflow.trigger(workflow, payload={"n": index}, cancellation_key=cancel)
            through_client.append(time.perf_counter() - start)
            start = time.perf_counter()
            body = {
                "workflow": workflow,
                "idempotency_key": str(uuid.uuid4()),
                "payload": {"n": index},
                "cancellation_key": cancel,
            }
            assert raw.post("/api/triggers/", json=body).status_code == 201
            bare.append(time.perf_counter() - start)
        # Nothing left for the workers to do a minute later.
        assert notiflow.runs.cancel_by_key(cancel, workflow=workflow).cancelled == 2 * TRIGGERS
    client_median, bare_median = statistics.median(through_client), statistics.median(bare)
    print(
        f"\n{TRIGGERS} triggers each: client median {client_median * 1000:.2f} ms, "
        f"p95 {statistics.quantiles(through_client, n=20)[18] * 1000:.2f} ms, total {sum(through_client):.2f} s; "
        f"bare httpx median {bare_median * 1000:.2f} ms, "
        f"p95 {statistics.quantiles(bare, n=20)[18] * 1000:.2f} ms, total {sum(bare):.2f} s"
    )
    assert client_median <= bare_median * 1.5 + 0.002
