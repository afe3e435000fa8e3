"""The OpenAPI schema and the API agree: a non-empty string or list the API insists on is
`minLength: 1` / `minItems: 1` in the schema, and every constraint the schema states on a request
body, a header or a path is one the API refuses to see broken (400 naming the field, or 404 for
a path)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node
from workflows.routing import NAME_PATTERN, KeyConverter

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(api_client) -> dict[str, Any]:
    return api_client.get("/api/schema/?format=json").json()


def request_schema(schema: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    body = schema["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
    return schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]


def test_the_schema_says_which_strings_and_lists_must_not_be_empty(schema):
    trigger = request_schema(schema, "/api/triggers/", "post")["properties"]
    assert trigger["workflow"] | {"minLength": 1, "maxLength": 100} == trigger["workflow"]
    key = trigger["idempotency_key"]
    assert (key["minLength"], key["maxLength"], key["pattern"]) == (1, 255, r"\S")
    assert trigger["payload"]["type"] == "object"
    (header,) = [
        p for p in schema["paths"]["/api/triggers/"]["post"]["parameters"] if p["in"] == "header"
    ]
    assert (header["schema"]["minLength"], header["schema"]["maxLength"]) == (1, 255)

    workflow = request_schema(schema, "/api/workflows/", "post")["properties"]
    for name in ("key", "name", "entry_node_id"):
        assert workflow[name]["minLength"] == 1, name
    assert workflow["nodes"]["minItems"] == 1
    assert "minItems" not in workflow["edges"]


def test_put_does_not_demand_the_key_it_takes_from_the_path(schema):
    put = request_schema(schema, "/api/workflows/{key}/", "put")
    assert "key" not in put["required"] and {"name", "nodes"} <= set(put["required"])
    # entry_node_id defaults to the first node.
    assert "entry_node_id" not in put["required"]
    (key,) = [p for p in schema["paths"]["/api/workflows/{key}/"]["get"]["parameters"]]
    # The pattern of workflows.routing, as its URL converter matches it (dotted keys).
    assert key["in"] == "path" and key["schema"]["pattern"] == NAME_PATTERN
    assert re.fullmatch(KeyConverter.regex, "billing.invoice_due.v1")
    assert not re.fullmatch(KeyConverter.regex, "billing..v1")


def broken(properties: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """For each constraint the schema states, a value that breaks it."""
    for name, prop in properties.items():
        if "minLength" in prop:
            yield name, ""
        if "maxLength" in prop:
            yield name, "x" * (prop["maxLength"] + 1)
        if "pattern" in prop:
            yield name, "   " if prop["pattern"] == r"\S" else "no spaces allowed!"
        if "minItems" in prop:
            yield name, []
        if prop.get("type") == "object":
            yield name, ["not", "an", "object"]


def assert_refused(response, field: str) -> None:
    assert response.status_code == 400, (field, response.content[:300])
    errors = response.json()["errors"]
    named = errors if isinstance(errors, dict) else {e["field"].split("[")[0] for e in errors}
    assert field in named, (field, errors)


def test_the_trigger_api_refuses_each_body_the_schema_rules_out(api_client, schema):
    workflow = WorkflowFactory()
    properties = request_schema(schema, "/api/triggers/", "post")["properties"]
    cases = list(broken(properties))
    assert {name for name, _ in cases} == {
        "workflow",
        "idempotency_key",
        "payload",
        "cancellation_key",
        "locale",  # at most 35 characters; a BCP 47 tag (docs/translations.md)
        "tenant",  # at most 64 characters; a tenant that exists (docs/tenants.md)
        "topic",  # a fan-out's (triggers/fanout_api.py)
    }
    for name, value in cases:
        body = {"workflow": workflow.key, "idempotency_key": unique(), "payload": {}, name: value}
        assert_refused(api_client.post("/api/triggers/", body, format="json"), name)
    for value in ("", "k" * 256):
        response = api_client.post(
            "/api/triggers/",
            {"workflow": workflow.key},
            format="json",
            HTTP_IDEMPOTENCY_KEY=value,
        )
        assert_refused(response, "idempotency_key")


def test_the_workflow_api_refuses_each_body_the_schema_rules_out(api_client, schema):
    properties = request_schema(schema, "/api/workflows/", "post")["properties"]
    cases = list(broken(properties))
    assert {"key", "name", "entry_node_id", "nodes"} <= {name for name, _ in cases}
    for name, value in cases:
        body = {"key": unique("wf"), "name": "n", **chain(email_node("a")), name: value}
        assert_refused(api_client.post("/api/workflows/", body, format="json"), name)


def test_a_path_key_the_schema_rules_out_is_not_found(api_client):
    assert api_client.get("/api/workflows/no%20spaces/").status_code == 404
