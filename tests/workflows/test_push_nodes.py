"""The webpush and push node types (workflows/nodes/webpush.py, push.py, pushing.py): what the
validator, the preview, the admin row and the API schema make of them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from rest_framework.test import APIClient

from tests.factories import chain, push_node, webpush_node
from workflows.admin.forms import NodeForm
from workflows.nodes import NODE_TYPES
from workflows.validation import workflow_validate


def problems(definition) -> list[tuple[str, str]]:
    return [(error.field, error.message) for error in workflow_validate(definition)]


@pytest.mark.parametrize("node", [webpush_node("n"), push_node("n", icon="/icon.png")])
def test_a_push_node_is_valid_without_any_address(node):
    assert problems(chain(node)) == []


def test_a_push_node_needs_its_title_and_refuses_an_address_field():
    node = {"id": "n", "type": "webpush", "body": "b", "to": "{{ payload.endpoint }}"}
    fields = [field for field, _ in problems(chain(node))]
    assert "nodes[0].title" in fields and "nodes[0].to" in fields


@pytest.mark.parametrize(
    ("link", "error"),
    [
        ("javascript:alert(1)", "'url' rendered 'javascript:alert(1)', not an https URL or a path"),
        ("http://shop.example/7", "not an https URL or a path"),
    ],
)
def test_a_link_must_render_to_https_or_a_path(link, error):
    kind = NODE_TYPES["webpush"]
    preview = kind.preview(
        webpush_node("n", url="{{ payload.link }}"),
        {"payload": {"name": "A", "order": 1, "link": link}, "vars": {}},
        datetime.now(UTC),
    )
    assert error in preview.error


def test_the_admin_row_edits_a_webpush_node():
    data = {"id": "n", "type": "webpush", "title": "Hi", "body": "There", "url": "/x"}
    row = NodeForm(data=data)
    assert row.is_valid(), row.errors
    assert row.node(None) == data
    groups = {tuple(f.name for f in fields): types.split() for types, fields in row.groups()}
    for fields in (("title",), ("body",), ("url", "icon"), ("provider",)):
        assert {"webpush", "push"} <= set(groups[fields]), fields
    # A push node names no address: its row has no `to`, nor does the empty row say it uses one.
    assert ("to",) not in groups and "to" not in row.fields
    every = {tuple(f.name for f in fields): types.split() for types, fields in empty_row_groups()}
    assert "webpush" not in every[("to",)]
    assert {"email", "sms"} <= set(every[("to",)])


def empty_row_groups():
    return NodeForm(all_types=True, prefix="nodes-__prefix__").groups()


@pytest.mark.django_db
def test_the_api_schema_lists_both_closed():
    schema = APIClient().get("/api/schema/?format=json").json()
    nodes = schema["components"]["schemas"]["WorkflowInput"]["properties"]["nodes"]
    by_type = {s["properties"]["type"]["enum"][0]: s for s in nodes["items"]["oneOf"]}
    for name in ("webpush", "push"):
        assert by_type[name]["required"] == ["id", "type", "title", "body"]
        assert set(by_type[name]["properties"]) == {
            "id",
            "type",
            "title",
            "body",
            "url",
            "icon",
            "provider",
        }
        assert by_type[name]["additionalProperties"] is False
