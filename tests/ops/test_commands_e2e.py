"""Operator commands end to end, with the stack's real workers: after the command a worker runs
the run and it ends where it should (docs/operations/processes.md; docs/design/deliveries.md, "Suppression and
unsubscribe")."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from deliveries.models import Suppression
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.workers.helpers import fire, wait_terminal
from triggers.models import TriggerInstance
from workers.models import StepExecutionLog

pytestmark = pytest.mark.e2e


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_trigger_workflow_wait_follows_the_run_and_a_completed_run_is_at_no_node(e2e):
    workflow = WorkflowFactory(definition=chain(sms_node("text")))
    payload = json.dumps({"name": "Wa", "phone": "+15550160"})

    out, err = run(
        "trigger_workflow",
        workflow.key,
        "--idempotency-key",
        unique("wait"),
        "--payload",
        payload,
        "--wait",
        "30",
    )

    trigger_id = out.strip().splitlines()[-1]
    assert TriggerInstance.objects.get(pk=trigger_id).status == "completed"
    lines = [line.strip() for line in err.splitlines()]
    assert lines[-1] == "completed" and "at -" not in err


def test_an_imported_opt_out_skips_the_send_and_a_dry_run_changes_nothing(e2e, api, tmp_path):
    workflow = WorkflowFactory(definition=chain(email_node("mail"), sms_node("text")))
    address = f"ok-{unique('optout')}@example.com"
    payload = {"email": address, "name": "Im", "phone": "+15550161"}
    listing = tmp_path / "list.csv"
    listing.write_text(f"channel,recipient\nemail,{address}\n")

    out, _ = run("suppressions", "import", str(listing), "--dry-run")
    assert "1 valid row(s): 1 would be added, 0 already there" in out
    assert not Suppression.objects.filter(recipient=address).exists()

    out, _ = run("suppressions", "import", str(listing))
    assert "1 added, 0 already there" in out
    (row,) = Suppression.objects.filter(recipient=address)
    assert (row.reason, row.source) == ("manual", "manage.py suppressions import")

    skipped = wait_terminal(fire(api, workflow, payload))
    assert skipped.status == "completed" and "sms_text" in skipped.vars
    step = StepExecutionLog.objects.get(trigger_id=skipped.pk, node_id="mail")
    assert step.output["rule"] == "opt-out" and step.output["suppressions"][0]["id"] == row.pk


def test_a_hard_bounce_fails_a_transactional_run_that_retry_failed_sends_once_it_is_removed(
    e2e, api, smtp_server
):
    workflow = WorkflowFactory(definition=chain(email_node("mail")))
    address = f"ok-{unique('bounced')}@example.com"
    added = api.post(
        "/api/suppressions/", {"channel": "email", "recipient": address, "reason": "bounced"}
    )
    assert added.status_code == 201 and added.json()["source"].startswith("api:e2e")

    stopped = wait_terminal(fire(api, workflow, {"email": address, "name": "Bo"}))
    assert stopped.status == "failed"
    assert stopped.last_error.startswith(f"suppressed: {address} (bounced, ")
    assert smtp_server.handler.to(address) == []

    assert api.delete(f"/api/suppressions/{added.json()['id']}/").status_code == 204
    out, _ = run("retry_failed", "--workflow", workflow.key)
    assert "Retried 1 of 1 failed trigger(s)." in out
    assert wait_terminal(stopped.pk).status == "completed"
    assert len(smtp_server.handler.to(address)) == 1
