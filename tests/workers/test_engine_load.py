"""Two worker processes, 500 triggers: every step executed and logged once, every email once."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from django.db.models import Count

from tests.conftest import sms_outbox, unique
from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.support.stack import wait_for
from triggers.models import TERMINAL_STATUSES, TriggerEvent, TriggerInstance
from workers.models import StepExecutionLog

pytestmark = pytest.mark.e2e

TRIGGERS = 500


def parent_pid(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def test_five_hundred_triggers_on_two_workers_run_each_step_exactly_once(api, e2e, smtp_server):
    run = unique("load")
    workflow = WorkflowFactory(
        definition=chain(
            email_node("mail", to="ok-{{ payload.n }}-" + run + "@example.com"), sms_node("text")
        )
    )

    def fire(n: int) -> str:
        session = requests.Session()
        session.headers.update(api.session.headers)
        body = {
            "workflow": workflow.key,
            "idempotency_key": f"{run}-{n}",
            "payload": {"n": n, "name": f"U{n}", "phone": f"+1555{n:07d}"},
        }
        response = session.post(f"{e2e.base_url}/api/triggers/", json=body, timeout=30)
        assert response.status_code == 201, response.text
        return response.json()["id"]

    with ThreadPoolExecutor(max_workers=8) as pool:
        ids = list(pool.map(fire, range(TRIGGERS)))

    triggers = TriggerInstance.objects.filter(workflow=workflow)
    wait_for(
        lambda: triggers.filter(status__in=TERMINAL_STATUSES).count() == TRIGGERS,
        timeout=180,
        interval=0.5,
        message="all 500 triggers terminal",
    )
    assert set(triggers.values_list("status", flat=True)) == {"completed"}

    steps = StepExecutionLog.objects.filter(trigger__workflow=workflow)
    per_step = steps.values("trigger_id", "node_id").annotate(n=Count("id"))
    assert len(per_step) == 2 * TRIGGERS and {row["n"] for row in per_step} == {1}
    assert not steps.filter(success=False).exists()

    emails = [m for m in smtp_server.handler.received if m.to[0].endswith(f"-{run}@example.com")]
    assert len(emails) == TRIGGERS
    assert len({m.message_id for m in emails}) == TRIGGERS
    assert {m.message_id for m in emails} == {f"<{i}.mail@notiflow.local>" for i in ids}

    texts = Counter(
        m["idempotency_key"]
        for m in sms_outbox(e2e)
        if m["idempotency_key"].split(":")[0] in set(ids)
    )
    assert len(texts) == TRIGGERS and set(texts.values()) == {1}

    # Both worker processes took part (claims name the pool process; map it to its worker).
    claimers = TriggerEvent.objects.filter(trigger__workflow=workflow, to_status="processing")
    pids = {
        int(actor.split("/")[0].rsplit(":", 1)[1])
        for actor in claimers.values_list("actor", flat=True)
    }
    workers = {parent_pid(pid) for pid in pids} & {p.popen.pid for p in e2e.processes}
    assert len(workers) == 2
