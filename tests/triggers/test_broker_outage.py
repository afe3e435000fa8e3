"""Intake while the broker is down: the trigger is accepted, durable, and runs once Redis is back."""

from __future__ import annotations

import time

import pytest
import requests

from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node
from tests.support.smtp import free_port
from tests.support.stack import Stack, wait_for
from tests.workers.helpers import wait_terminal

pytestmark = pytest.mark.e2e


@pytest.fixture
def web_without_broker(e2e, tmp_path):
    port = free_port()
    dead = {**e2e.env, "CELERY_BROKER_URL": f"redis://127.0.0.1:{free_port()}/0"}
    stack = Stack(env=dead, workdir=tmp_path)
    stack.web(port)
    wait_for(lambda: _answers(stack.base_url), timeout=30, interval=0.2, message="web up")
    yield stack
    stack.stop()


def _answers(base_url: str) -> bool:
    try:
        return requests.get(f"{base_url}/api/health/", timeout=10).status_code in (200, 503)
    except requests.RequestException:
        return False


def test_trigger_accepted_while_broker_down_runs_after_sweeper_nudge(e2e, web_without_broker):
    workflow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=0)))
    headers = {"Authorization": f"Bearer {e2e.env['API_KEY']}"}
    body = {"workflow": workflow.key, "idempotency_key": unique(), "payload": {}}

    started = time.monotonic()
    response = requests.post(
        f"{web_without_broker.base_url}/api/triggers/", json=body, headers=headers, timeout=30
    )
    elapsed = time.monotonic() - started
    assert response.status_code == 201, response.text
    assert elapsed < 1, f"intake blocked {elapsed:.1f}s on the dead broker"

    health = requests.get(f"{web_without_broker.base_url}/api/health/", timeout=30)
    assert (health.status_code, health.json()) == (503, {"status": "down"})
    details = requests.get(
        f"{web_without_broker.base_url}/api/health/", headers=headers, timeout=30
    ).json()
    assert details["broker"] == {"ok": False, "error": "connection refused"}

    # The nudge was lost; the (live) stack's sweeper re-nudges it after NOTIFLOW_RENUDGE_AFTER_SECONDS.
    assert wait_terminal(response.json()["id"], timeout=30).status == "completed"
