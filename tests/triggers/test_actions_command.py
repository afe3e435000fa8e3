"""`manage.py runs_action` (docs/bulk-actions.md): the API's bulk action from a shell, its filter
checked as the API checks it, its chunks worked by the command itself beside the workers (under
the same lease), with a progress bar on a terminal and a summary on stdout. Bad flags are
tests/ops/test_command_errors.py's."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from tests.factories import WorkflowFactory, chain, delay_node
from tests.triggers.support import failed, new_trigger
from triggers.models import TriggerAction, TriggerInstance

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("runs_action", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def workflow():
    return WorkflowFactory(definition=chain(delay_node("wait", delay_ms=3_600_000)))


def test_a_dry_run_lists_the_runs_and_changes_nothing(workflow):
    broken = failed(new_trigger(workflow), "SMTP 421 later")
    new_trigger(workflow)

    out, _ = run("retry", "--workflow", workflow.key, "--dry-run")

    assert f"{broken.pk} {workflow.key} failed: SMTP 421 later" in out
    assert out.strip().endswith("1 run(s) would be acted on (retry).")
    assert not TriggerAction.objects.exists()
    assert TriggerInstance.objects.get(pk=broken.pk).status == "failed"


@override_settings(NOTIFLOW_ACTION_CHUNK_SIZE=2)
def test_the_command_works_every_chunk_and_records_who_asked(workflow):
    runs = [new_trigger(workflow) for _ in range(5)]

    out, _ = run("cancel", "--workflow", workflow.key, "--status", "enqueued", "--node", "wait")

    action = TriggerAction.objects.get()
    assert out.splitlines() == [
        f"Bulk action {action.pk} (cancel): 5 run(s) matched.",
        "done: 5 done, 0 skipped, 0 error(s).",
    ]
    assert action.requested_by == "manage.py runs_action"
    assert action.filter == {"workflow": workflow.key, "status": ["enqueued"], "node": "wait"}
    assert {TriggerInstance.objects.get(pk=r.pk).status for r in runs} == {"cancelled"}


def test_the_same_idempotency_key_starts_nothing_again(workflow):
    run_ = failed(new_trigger(workflow))
    first, _ = run("replay", "--ids", str(run_.pk), "--idempotency-key", "once")
    assert "1 run(s) matched." in first
    again, _ = run("replay", "--ids", str(run_.pk), "--idempotency-key", "once")

    assert "1 run(s) matched, asked before." in again
    assert TriggerAction.objects.count() == 1
    assert TriggerInstance.objects.filter(workflow=workflow).count() == 2
    with pytest.raises(CommandError, match="was used for another action"):
        run("cancel", "--ids", str(run_.pk), "--idempotency-key", "once")


@override_settings(NOTIFLOW_ACTION_MAX=1)
def test_more_matches_than_the_maximum_is_an_error_saying_how_many(workflow):
    new_trigger(workflow)
    new_trigger(workflow)
    with pytest.raises(CommandError, match="2 runs match"):
        run("cancel", "--workflow", workflow.key)
