"""The operator's manage.py commands: clear output, and a non-zero exit when something failed."""

from __future__ import annotations

import json
import uuid
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.triggers.support import claimed, failed, new_trigger
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workflows.models import Workflow, WorkflowVersion

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_trigger_workflow_creates_once_per_key_and_prints_the_id(tmp_path):
    workflow = WorkflowFactory()
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"email": "ok@example.com", "name": "Ann", "phone": "+15550199"}))

    out, err = run(
        "trigger_workflow", workflow.key, "--idempotency-key", "k1", "--payload", f"@{payload}"
    )
    trigger = TriggerInstance.objects.get(workflow=workflow, idempotency_key="k1")
    assert out.strip().splitlines()[-1] == str(trigger.pk)
    assert "Created trigger" in err and trigger.payload["name"] == "Ann"

    out, err = run(
        "trigger_workflow", workflow.key, "--idempotency-key", "k1", "--payload", f"@{payload}"
    )
    assert out.strip() == str(trigger.pk) and "Already existed" in err

    # The key with another payload is not a replay.
    with pytest.raises(
        CommandError, match=f"used with other parameters .* by trigger {trigger.pk}"
    ):
        run("trigger_workflow", workflow.key, "--idempotency-key", "k1", "--payload", "{}")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", "--idempotency-key", "k"], "workflow 'nope' does not exist"),
        (["{key}", "--idempotency-key", "k", "--payload", "[1]"], "payload must be a JSON object"),
        (["{key}", "--idempotency-key", "k", "--payload", "{"], "--payload is not valid JSON"),
        (["{key}", "--idempotency-key", "k", "--payload", "@/missing.json"], "cannot read"),
    ],
)
def test_trigger_workflow_fails_with_a_clear_message(args, message):
    workflow = WorkflowFactory()
    with pytest.raises(CommandError, match=message):
        run("trigger_workflow", *[a.replace("{key}", workflow.key) for a in args])


def test_cancel_trigger_exits_non_zero_for_a_finished_trigger():
    running, finished = new_trigger(), failed(new_trigger())

    with pytest.raises(CommandError, match="1 of 2 not cancelled"):
        run("cancel_trigger", str(running.pk), str(finished.pk))
    running.refresh_from_db()
    assert running.status == "cancelled"


def test_cancel_and_delete_take_the_8_characters_the_admin_shows():
    running, other = new_trigger(), new_trigger()

    out, _ = run("cancel_trigger", str(running.pk)[:8])
    assert out.strip() == f"{running.pk}: cancelled"
    out, _ = run("delete_trigger", str(other.pk)[:8].upper())
    assert out.strip() == f"{other.pk}: deleted (enqueued)"
    assert TriggerInstance.objects.get(pk=other.pk).deleted_at is not None


def test_an_ambiguous_prefix_is_refused_listing_the_triggers_it_starts():
    ids = [uuid.UUID(f"abcd0000-0000-4000-8000-00000000000{n}") for n in (1, 2)]
    for trigger_id in ids:
        due_trigger(id=trigger_id)  # each of a workflow of its own

    with pytest.raises(CommandError) as refused:
        run("cancel_trigger", "abcd0000")

    assert str(refused.value) == (
        f"'abcd0000' is ambiguous: it starts the ids {ids[0]}, {ids[1]}; nothing was changed"
    )
    assert {t.status for t in TriggerInstance.objects.filter(pk__in=ids)} == {"enqueued"}


def test_deleting_a_deleted_trigger_says_already_deleted_as_revoking_says_already_revoked():
    trigger = new_trigger()
    run("delete_trigger", str(trigger.pk), "--reason", "first")

    out, _ = run("delete_trigger", str(trigger.pk), "--reason", "second")

    trigger.refresh_from_db()
    assert out.startswith(f"{trigger.pk}: already deleted at {trigger.deleted_at:%Y-%m-%d}")
    assert trigger.delete_reason == "first"


def test_import_of_a_file_that_is_not_json_names_the_file(tmp_path):
    target = tmp_path / "broken.json"
    target.write_text("{")
    with pytest.raises(CommandError, match=f"the workflow export in {target} is not valid JSON"):
        run("import_workflow", str(target))


def test_retry_failed_retries_only_the_selected_workflow():
    mine, other = WorkflowFactory(), WorkflowFactory()
    a, b = failed(new_trigger(mine)), failed(new_trigger(other))

    out, _ = run("retry_failed", "--workflow", mine.key, "--dry-run")
    assert str(a.pk) in out and str(b.pk) not in out and "1 failed trigger(s) would be" in out
    a.refresh_from_db()
    assert a.status == "failed"

    out, _ = run("retry_failed", "--workflow", mine.key, "--since", "1h")
    a.refresh_from_db()
    b.refresh_from_db()
    assert (a.status, b.status) == ("enqueued", "failed")
    assert "Retried 1 of 1" in out
    assert "Retried 0 of 0" in run("retry_failed", "--since", "2999-01-01")[0]


def test_requeue_stuck_requeues_expired_leases():
    stuck = claimed(new_trigger(), lease_seconds=-1)
    alive = claimed(new_trigger(), lease_seconds=60)

    out, _ = run("requeue_stuck", "--older-than", "1h")
    stuck.refresh_from_db()
    alive.refresh_from_db()
    assert (stuck.status, alive.status) == ("enqueued", "processing")
    assert "Requeued 1 stuck trigger(s)." in out
    with pytest.raises(CommandError, match="neither a date nor an age"):
        run("requeue_stuck", "--older-than", "soon")


def test_validate_workflows_checks_every_stored_version():
    workflow = WorkflowFactory(definition=chain(email_node("a")))
    out, _ = run("validate_workflows", "--workflow", workflow.key)
    assert "1 valid, 0 invalid" in out

    # A version stored before a rule existed: written directly, as an old release would have.
    WorkflowVersion.objects.create(
        workflow=workflow, number=2, definition={"entry_node_id": "a", "nodes": []}
    )
    err = StringIO()
    with pytest.raises(CommandError):
        call_command(
            "validate_workflows", "--workflow", workflow.key, stderr=err, stdout=StringIO()
        )
    assert (
        f"{workflow.key} v2:" in err.getvalue()
        and "nodes: must be a non-empty list" in err.getvalue()
    )


def test_stats_count_by_status_and_workflow_and_report_the_lag():
    workflow = WorkflowFactory()
    new_trigger(workflow)
    failed(new_trigger(workflow))

    data = json.loads(run("notiflow_stats", "--json")[0])
    assert data["by_workflow"][workflow.key]["enqueued"] == 1
    assert data["by_workflow"][workflow.key]["failed"] == 1
    assert data["oldest_due"]["workflow"] == workflow.key
    assert data["lag_seconds"] >= 0
    text = run("notiflow_stats")[0]
    assert workflow.key in text and "Oldest due trigger:" in text and "Lag:" in text


def test_export_then_import_moves_a_workflow(tmp_path):
    workflow = WorkflowFactory(definition=chain(email_node("a"), sms_node("b")))
    target = tmp_path / "export.json"
    run("export_workflow", workflow.key, "-o", str(target))
    Workflow.objects.filter(pk=workflow.pk).delete()

    out, _ = run("import_workflow", str(target))
    assert out.strip() == f"{workflow.key}: created (version 1)"
    assert Workflow.objects.get(key=workflow.key).definition == workflow.definition

    broken = json.loads(target.read_text())
    broken["edges"] = [{"from": "a", "to": "nowhere"}]
    target.write_text(json.dumps(broken))
    err = StringIO()
    with pytest.raises(CommandError, match="nothing imported"):
        call_command("import_workflow", str(target), stdout=StringIO(), stderr=err)
    assert "edges[0].to: node 'nowhere' does not exist" in err.getvalue()
    assert Workflow.objects.get(key=workflow.key).version == 1

    # The key is checked by the model field's own validators, as the API and the admin do.
    for key, problem in (
        ("no spaces!", "separated by single dots"),
        ("k" * 101, "at most 100 characters"),
    ):
        target.write_text(json.dumps({**broken, "key": key, "edges": []}))
        err = StringIO()
        with pytest.raises(CommandError, match="nothing imported"):
            call_command("import_workflow", str(target), stdout=StringIO(), stderr=err)
        assert "key: " in err.getvalue() and problem in err.getvalue()
