"""Preview rendering, sample payloads, version diffs, and export/import of workflows."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.factories import WorkflowFactory, chain, delay_node, digest_node, email_node, sms_node
from workflows.history import definition_diff
from workflows.models import Workflow
from workflows.preview import sample_payload, workflow_preview
from workflows.selectors import workflow_export
from workflows.services import WorkflowImportInvalid, workflow_import

WORKFLOW = {"key": "w", "name": "W", "version": 1}


def test_preview_gives_each_node_the_vars_of_the_nodes_before_it():
    definition = chain(
        email_node("first"),
        sms_node("second", body="{{ vars.email_first.to }} {{ vars.email_first.message_id }}"),
    )
    preview = workflow_preview(
        definition=definition,
        payload={"email": "a@example.com", "name": "A", "phone": "1"},
        workflow=WORKFLOW,
    )

    assert preview.nodes[1].value("body") == "a@example.com <preview.first@notiflow.local>"


def test_preview_does_not_offer_vars_of_a_node_that_runs_later():
    definition = chain(email_node("first", subject="{{ vars.sms_second.to }}"), sms_node("second"))
    preview = workflow_preview(
        definition=definition, payload={"email": "a", "name": "A", "phone": "1"}, workflow=WORKFLOW
    )

    assert preview.nodes[0].fields[1].error == "vars.sms_second is undefined"
    assert not preview.ok


def test_preview_route_follows_the_first_condition_that_holds():
    definition = {
        "entry_node_id": "start",
        "nodes": [delay_node("start"), sms_node("pro"), sms_node("basic")],
        "edges": [
            {"from": "start", "to": "pro", "when": 'payload.plan == "pro"'},
            {"from": "start", "to": "basic"},
        ],
    }
    payload = {"plan": "pro", "phone": "1", "name": "A"}
    assert workflow_preview(definition=definition, payload=payload, workflow=WORKFLOW).route == [
        "start",
        "pro",
    ]
    payload["plan"] = "free"
    assert workflow_preview(definition=definition, payload=payload, workflow=WORKFLOW).route == [
        "start",
        "basic",
    ]


def test_sample_payload_has_every_payload_path_the_templates_read():
    definition = chain(
        email_node("a", to="{{ payload.user.email }}", subject="{{ payload.user.name }}"),
        sms_node("b", to="{{ payload.phone }}", body="{{ payload.code }}"),
    )
    definition["edges"][0]["when"] = "payload.vip"

    assert sample_payload(definition) == {
        "user": {"email": "ada@example.com", "name": "Ada"},
        "phone": "+15550100",
        "code": "123456",
        "vip": "sample vip",
        "name": "Ada",  # the factory's default email body reads payload.name
    }


def test_a_digest_workflows_sample_payload_has_the_shape_its_events_are_read_with():
    """Each of a digest's events is a gathered run's payload: what a loop over them reads
    (`e.author`) is a payload field, so the sample has it and the preview of a correct digest
    workflow is clean (it said "A run fails here: e.author is undefined")."""
    definition = chain(
        digest_node("comments", key="{{ payload.user_id }}"),
        email_node(
            "mail",
            subject="{{ vars.digest_comments.count }} new comments",
            body="{% for e in vars.digest_comments.events %}{{ e.author }}: {{ e.text }}\n"
            "{% endfor %}{% for item in payload.items %}{{ item.sku }}{% endfor %}",
        ),
    )

    sample = sample_payload(definition)

    assert sample["author"] == "sample author" and sample["text"] == "sample text"
    assert sample["items"] == [{"sku": "sample sku"}]  # a payload list a loop reads items of
    preview = workflow_preview(definition=definition, payload=sample, workflow=WORKFLOW)
    assert preview.ok, [n.error for n in preview.nodes]
    assert preview.nodes[1].value("body") == "sample author: sample text\nsample sku"


def test_a_wait_reads_as_one_duration_and_one_time():
    now = datetime(2026, 11, 25, 14, 42, 17, 968811, tzinfo=UTC)
    definition = chain(delay_node("pause", duration="5s"), delay_node("long", delay_ms=5_400_000))

    pause, long = workflow_preview(
        definition=definition, payload={}, workflow=WORKFLOW, now=now
    ).nodes

    assert pause.note == "waits 5s, until 2026-11-25 14:42:22 UTC"
    assert long.note == "waits 5400000 ms, until 2026-11-25 16:12:17 UTC"


def test_diff_summarises_nodes_edges_and_entry():
    old = chain(email_node("a"), sms_node("b"))
    new = chain(email_node("a", subject="New"), delay_node("c"))
    diff = definition_diff(old, new)

    assert diff.summary == [
        "edge a → b removed",
        "edge a → c added",
        "node a changed: subject",
        "node b removed",
        "node c added (delay)",
    ]
    assert any(line.kind == "add" and '"New"' in line.text for line in diff.lines)
    assert not definition_diff(old, old).changed


@pytest.mark.django_db
def test_export_then_import_elsewhere_creates_then_versions_only_on_change():
    workflow = WorkflowFactory(definition=chain(email_node("a"), sms_node("b")))
    document = workflow_export(workflow=workflow)
    Workflow.objects.filter(pk=workflow.pk).delete()

    (created,) = workflow_import(documents=[document], actor="test")
    assert (created.action, created.version) == ("created", 1)
    assert Workflow.objects.get(key=workflow.key).definition == workflow.definition

    (again,) = workflow_import(documents=[document])
    assert again.action == "unchanged"
    document["nodes"][0]["subject"] = "Changed"
    (updated,) = workflow_import(documents=[document])
    assert (updated.action, updated.version) == ("updated", 2)


@pytest.mark.django_db
def test_import_is_all_or_nothing():
    good = {"key": "wf-good", "name": "Good", **chain(email_node("a"))}
    bad = {"key": "wf-bad", "name": "Bad", **chain(email_node("a", subject="{{ x"))}

    with pytest.raises(WorkflowImportInvalid) as raised:
        workflow_import(documents=[good, bad])
    assert list(raised.value.problems) == ["wf-bad"]
    assert "nodes[0].subject" in raised.value.problems["wf-bad"][0]
    assert not Workflow.objects.filter(key="wf-good").exists()
