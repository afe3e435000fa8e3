"""A node type is one module and one line in the registry (docs/design/workflows.md, "Node types"): a toy
type registered here, and nowhere else, is validated, previewed, drawn, edited in the admin,
described in the API schema and run by the engine; and no consumer branches on a type's name."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django import forms
from django.core import mail
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.factories import chain, delay_node, email_node
from tests.support.sources import project_sources
from tests.workers.helpers import due_trigger, node_output, run_to_the_end
from triggers.state import trigger_cancel
from workers.models import StepExecutionLog
from workers.services.engine import step_execute
from workflows.admin.forms import NodeForm
from workflows.definition import duration_parse
from workflows.diagram import workflow_diagram_svg
from workflows.models import Workflow
from workflows.nodes import NODE_TYPES, node_type_registered
from workflows.nodes.base import NodeRun, NodeType, StepPort, output_key
from workflows.preview import workflow_preview
from workflows.validation import workflow_validate

ROOT = Path(__file__).resolve().parent.parent


class NoteNode(NodeType):
    """The toy: renders its `text` and leaves it in vars (`vars.note_<id>.text`)."""

    name = "note"
    required = ("text",)
    templates = ("text",)
    outputs = True
    form_groups = (("text",),)

    def run(self, node: dict[str, Any], *, step: StepPort) -> NodeRun:
        output = {"text": self.field_render(node, "text", step.context)}
        return NodeRun(output=output, vars_patch={output_key(node): output})

    def placeholder(self, node, *, preview, payload, now) -> dict[str, Any]:  # type: ignore[no-untyped-def]
        return {"text": preview.value("text") or ""}

    def summary(self, node: dict[str, Any]) -> str:
        return f"note · {node.get('text', '')}"

    def form_fields(self) -> dict[str, forms.Field]:
        return {"text": forms.CharField(required=False, strip=False, label="Note")}


def noted() -> dict[str, Any]:
    """note -> an email whose body reads the note's output."""
    return chain(
        {"id": "n", "type": "note", "text": "Dear {{ payload.name }}"},
        email_node("mail", body="{{ vars.note_n.text }}, welcome"),
    )


@pytest.fixture
def note():
    with node_type_registered(NoteNode) as registered:
        yield registered


def test_a_registered_type_is_validated_by_its_declaration(note):
    assert workflow_validate(noted()) == []
    definition = noted()
    definition["nodes"][0] = {"id": "n", "type": "note", "txt": "typo"}
    errors = {(e.field, e.message.split(" (")[0]) for e in workflow_validate(definition)}
    assert ("nodes[0].txt", "is not a field of note nodes") in errors
    assert ("nodes[0].text", "is required") in errors


def test_an_unregistered_type_is_refused():
    errors = workflow_validate(noted())
    assert [e.field for e in errors] == ["nodes[0].type"] and "'note'" in errors[0].message


def test_a_registered_type_is_previewed_and_its_output_reaches_later_nodes(note):
    preview = workflow_preview(
        definition=noted(),
        payload={"name": "Ada", "email": "ada@example.com"},
        workflow={"key": "k", "name": "n", "version": 1},
    )
    nodes = {n.node_id: n for n in preview.nodes}
    assert preview.ok and preview.route == ["n", "mail"]
    assert nodes["n"].value("text") == "Dear Ada"
    assert nodes["mail"].value("body") == "Dear Ada, welcome"


def test_a_registered_type_is_drawn_as_it_describes_itself(note):
    svg = workflow_diagram_svg(noted())
    assert 'data-type="note"' in svg and "note · Dear {{ payload.name }}" in svg


def test_a_registered_type_is_edited_in_the_admin_row(note):
    row = NodeForm(data={"id": "n", "type": "note", "text": "Hi {{ payload.name }}"})
    assert row.is_valid(), row.errors
    assert row.node(None) == {"id": "n", "type": "note", "text": "Hi {{ payload.name }}"}
    # `text` is a name the chat types share with it: one field, in a group naming each type.
    assert any(
        "note" in types.split() and [f.name for f in fields] == ["text"]
        for types, fields in row.groups()
    )
    assert NodeForm.initial_for(row.node(None))["text"] == "Hi {{ payload.name }}"


def test_a_registered_type_is_in_the_api_schema(note):
    schema = APIClient().get("/api/schema/?format=json").json()
    nodes = schema["components"]["schemas"]["WorkflowInput"]["properties"]["nodes"]
    by_type = {s["properties"]["type"]["enum"][0]: s for s in nodes["items"]["oneOf"]}
    assert set(by_type) == set(NODE_TYPES)
    assert by_type["note"]["required"] == ["id", "type", "text"]
    assert by_type["note"]["additionalProperties"] is False


@pytest.mark.django_db
def test_a_registered_type_is_run_by_the_engine(note):
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        trigger = run_to_the_end(noted(), {"name": "Ada", "email": "ada@example.com"})
    assert trigger.status == "completed", trigger.last_error
    assert trigger.vars["note_n"] == {"text": "Dear Ada"}
    assert [m.body for m in mail.outbox] == ["Dear Ada, welcome"]
    logged = StepExecutionLog.objects.get(trigger=trigger, node_id="n")
    assert logged.node_type == "note" and node_output(logged) == {"text": "Dear Ada"}
    assert logged.output["decision"]["decision"] == "passed"  # a type that decides nothing


class StampNode(NodeType):
    """A toy that writes in its step's transaction (as an inbox row would): the workflow's
    description, after the step's release."""

    name = "stamp"
    required = ("text",)

    def run(self, node: dict[str, Any], *, step: StepPort) -> NodeRun:
        table = Workflow._meta.db_table
        sql = (
            f"UPDATE {table} SET description = %(stamp_text)s "  # noqa: S608
            f"WHERE {table}.id = %(stamp_workflow)s"
        )
        params = {
            "stamp_text": f"{node['text']} by {step.trigger_id}",
            "stamp_workflow": step.workflow_id,
        }
        return NodeRun(output={}, writes=[(sql, params)])


@pytest.mark.django_db
def test_a_node_writes_in_its_steps_transaction():
    with node_type_registered(StampNode):
        trigger = run_to_the_end(chain({"id": "s", "type": "stamp", "text": "seen"}), {})
    assert trigger.status == "completed", trigger.last_error
    assert Workflow.objects.get(pk=trigger.workflow_id).description == f"seen by {trigger.pk}"


class StampCancelledMeanwhile(StampNode):
    """The stamp, of a run cancelled while its node ran: the release does not apply."""

    name = "stamp_cancelled"

    def run(self, node: dict[str, Any], *, step: StepPort) -> NodeRun:
        trigger_cancel(trigger_id=step.trigger_id, actor="tests")
        return super().run(node, step=step)


@pytest.mark.django_db
def test_a_nodes_writes_are_dropped_with_a_release_that_does_not_apply():
    with node_type_registered(StampCancelledMeanwhile):
        trigger = due_trigger(chain({"id": "s", "type": "stamp_cancelled", "text": "seen"}))
        before = Workflow.objects.get(pk=trigger.workflow_id).description
        assert step_execute(trigger_id=str(trigger.pk), worker_id="w") is None
    assert "seen" not in before
    assert Workflow.objects.get(pk=trigger.workflow_id).description == before


class HearsayNode(NoteNode):
    """A toy that takes posted events received up to its `since` before it was reached."""

    name = "hearsay"
    optional = ("since",)
    takes_posted_events = True

    def lookback(self, node: dict[str, Any]) -> timedelta:
        return duration_parse(str(node.get("since") or "0s"))


@pytest.mark.django_db
def test_the_events_purge_keeps_what_a_registered_type_may_still_take():
    """`purge_events` asks the node types that take posted events how far back they reach
    (waits.services.longest_lookback), not a type it names."""
    from waits.services import longest_lookback

    with node_type_registered(HearsayNode):
        due_trigger(chain({"id": "h", "type": "hearsay", "text": "t", "since": "3d"}))
        assert longest_lookback() == timedelta(days=3)


def _step_queries(definition: dict[str, Any]) -> int:
    trigger = due_trigger(definition, payload={"name": "Ada", "email": "ada@example.com"})
    with CaptureQueriesContext(connection) as captured:
        step_execute(trigger_id=str(trigger.pk), worker_id="w")
    return len(captured.captured_queries)


@pytest.mark.django_db
def test_a_registered_types_step_costs_what_a_delays_does(note):
    after = email_node("mail")
    _step_queries(chain(delay_node("warm"), after))  # the first step of a test fills caches
    delay = _step_queries(chain(delay_node("wait"), after))
    assert _step_queries(noted()) == delay


# --- no consumer branches on a node type's name --------------------------------------------------

# Where a type's name may be compared with: its own module, and the channels' senders (a channel
# is named like the type that sends on it: "email" there is the channel). The providers, the
# suppression list, delivery reports and the workers' start ask the channel registry instead.
ALLOWED = (
    "workflows/nodes/",
    "workers/channels/",
)


# The consumers the registry serves, where a table keyed by a type's name is a branch too.
CONSUMERS = ("workflows/", "workers/services/engine.py")


def _type_branches(source: str, names: list[str], *, tables: bool = True) -> list[str]:
    quoted = "|".join(re.escape(name) for name in names)
    literal = rf"""["'](?:{quoted})["']"""
    patterns = [
        rf"(?:==|!=)\s*{literal}",  # kind == "email"
        rf"{literal}\s*(?:==|!=)",  # "email" == kind
        rf"\bin\s*[\(\[{{]\s*{literal}",  # kind in ("delay", "window")
    ]
    if tables:
        patterns.append(rf"^\s*{literal}\s*:")  # {"email": ...}: a table keyed by type
    return [
        line.strip() for line in source.splitlines() if any(re.search(p, line) for p in patterns)
    ]


def test_no_consumer_branches_on_a_node_type_name():
    names = list(NODE_TYPES)
    found = []
    for path in project_sources():
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(ALLOWED):
            continue
        tables = relative.startswith(CONSUMERS)
        lines = _type_branches(path.read_text(), names, tables=tables)
        found += [f"{relative}: {line}" for line in lines]
    assert found == []


def test_the_scan_finds_a_type_branch():
    branches = _type_branches('if node["type"] == "digest":\n    x = 1\n', ["digest"])
    assert branches == ['if node["type"] == "digest":']
    assert _type_branches('_STYLE = {\n    "email": ("#fff", "#000"),\n}', ["email"])


def test_node_types_keep_workflows_free_of_the_apps_that_run_them():
    # A node type's run reaches the engine's tables through the StepPort it is given, never by
    # importing workers (or triggers): workflows imports neither (docs/design/index.md, layout).
    importing = re.compile(r"^\s*(?:from|import)\s+(?:triggers|workers)\b", re.MULTILINE)
    found = [
        path.relative_to(ROOT).as_posix()
        for path in sorted((ROOT / "workflows").rglob("*.py"))
        if importing.search(path.read_text())
    ]
    assert found == []


def test_every_channel_has_a_label_people_read():
    """The hosted preference page shows a channel by its label, never its id (issue 44)."""
    from recipients.preferences import channel_labels, known_channels

    labels = channel_labels()
    assert list(labels) == known_channels()
    assert all(label and label != channel for channel, label in labels.items()), labels
