"""The funnel's sweep end to end (issue 51 §1, docs/funnel.md): the stack's workers run the runs,
its beat sends the funnel's sweep, a worker rolls their steps up into funnel_count, and the API
shows the counts."""

from __future__ import annotations

import pytest
from django.db.models import Sum

from deliveries.models import FunnelCount
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node
from tests.support.stack import wait_for
from tests.workers.helpers import fire, wait_terminal

pytestmark = pytest.mark.e2e
RUNS = 4


def test_the_stacks_sweep_counts_the_runs_steps_and_the_api_shows_them(api, e2e, smtp_server):
    workflow = WorkflowFactory(definition=chain(email_node("mail")))
    ids = [
        fire(api, workflow, {"email": f"sweep-{unique()}@example.com", "name": "Ann"})
        for _ in range(RUNS)
    ]
    assert [wait_terminal(run).status for run in ids] == ["completed"] * RUNS

    def rolled_up() -> int:
        sent = FunnelCount.objects.filter(workflow=workflow, node_id="mail", outcome="sent")
        return sent.aggregate(n=Sum("count"))["n"] or 0

    # The rollup itself, not the read's tail: the beat's sweep counted them (once the server's
    # oldest open transaction, which may be another session's, let the watermark by).
    assert wait_for(lambda: rolled_up() >= RUNS, timeout=120, interval=0.5, message="swept")
    assert rolled_up() == RUNS
    response = api.get(f"/api/workflows/{workflow.key}/funnel/")
    assert response.status_code == 200, response.text
    (mail,) = response.json()["nodes"]
    assert (mail["node"], mail["counts"]["sent"], mail["counts"]["failed"]) == ("mail", RUNS, 0)
