"""Issue 31 against the real stack: receivers that drip their answer a byte at a time (each byte
well inside a per-read timeout) hold neither the engine's workers nor their own deliveries
forever. The deliveries run on the webhook workers' queue, every attempt ends at its deadline,
and each delivery ends failed after NOTIFLOW_WEBHOOK_MAX_ATTEMPTS recorded attempts."""

from __future__ import annotations

import time

import pytest

from events.models import DeliveryStatus, WebhookDelivery
from tests.conftest import STACK_SETTINGS, unique
from tests.events.support import endpoint_on
from tests.factories import WorkflowFactory, chain, email_node
from tests.support.stack import wait_for
from tests.workers.helpers import fire, wait_terminal

pytestmark = pytest.mark.e2e

# More drip receivers than the stack's webhook worker has slots (2), and as many as the engine's
# workers have (2 x 2): on a shared queue they would hold every one of them.
DRIPS = 4
MAX_ATTEMPTS = int(STACK_SETTINGS["NOTIFLOW_WEBHOOK_MAX_ATTEMPTS"])
DEADLINE_MS = 1000 * float(STACK_SETTINGS["NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS"])


def test_drip_receivers_never_stall_the_engine_and_end_as_failed_attempts_up_to_the_cap(
    api, receiver
):
    assert receiver.drip_seconds < DEADLINE_MS / 1000  # every read gets a byte in time
    drips = [endpoint_on(receiver, "drip", events=["trigger.deleted"])[0] for _ in range(DRIPS)]
    for endpoint in drips:
        assert api.post(f"/api/webhooks/{endpoint.pk}/test/", None).status_code == 202
    receiver.wait_for("/drip/", 2, timeout=15)  # the webhook workers are busy with them

    workflow = WorkflowFactory(definition=chain(email_node("mail")))
    started = time.monotonic()
    trigger_id = fire(api, workflow, {"email": f"ok-{unique()}@example.com", "name": "Al"})
    trigger = wait_terminal(trigger_id, timeout=30)
    elapsed = time.monotonic() - started
    assert trigger.status == "completed", trigger.last_error
    # Meanwhile: the drip deliveries were still under way when the email went.
    pending = WebhookDelivery.objects.filter(endpoint__in=drips, status=DeliveryStatus.PENDING)
    assert pending.exists()
    assert elapsed < 1.0, f"an email trigger took {elapsed:.2f} s beside the drip receivers"

    def settled():
        rows = list(WebhookDelivery.objects.filter(endpoint__in=drips))
        return rows if all(d.status != DeliveryStatus.PENDING for d in rows) else None

    deliveries = wait_for(settled, timeout=90, interval=0.2, message="drip deliveries settled")
    assert [(d.status, d.attempts) for d in deliveries] == [
        (DeliveryStatus.FAILED, MAX_ATTEMPTS)
    ] * DRIPS
    for endpoint in drips:
        response = api.get(f"/api/webhooks/{endpoint.pk}/deliveries/")
        assert response.status_code == 200
        attempts = response.json()["results"]
        assert [a["attempt"] for a in attempts] == list(range(MAX_ATTEMPTS, 0, -1))
        for attempt in attempts:
            assert attempt["status_code"] is None
            assert attempt["error"] == "timed out: no complete answer within the 2 s deadline"
            assert DEADLINE_MS <= attempt["duration_ms"] < DEADLINE_MS + 1500
