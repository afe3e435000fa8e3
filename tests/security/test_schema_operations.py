"""The OpenAPI schema documents every operation (issue 30 §2, issue 31): a summary each, the 400
for an unknown field, query parameter or NUL, the 400 for an unknown workflow and the 422 where
they happen, and query parameters only where the operation takes them."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema):
    return [
        (path, method, operation)
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    ]


def test_every_operation_has_a_summary(schema):
    missing = [(m, p) for p, m, op in operations(schema) if not op.get("summary", "").strip()]
    assert missing == []
    summaries = [op["summary"] for _, _, op in operations(schema)]
    assert len(summaries) == len(set(summaries)), "two operations share a summary"


def test_every_400_documents_unknown_fields_query_parameters_and_nul(schema):
    for path, method, operation in operations(schema):
        if path in {"/api/health/", "/api/schema/", "/api/docs/"}:
            continue
        description = operation["responses"]["400"]["description"]
        assert "unknown" in description and "did you mean" in description, (method, path)
        assert "given twice" in description and "NUL" in description, (method, path)


def test_the_public_health_check_documents_its_400(schema):
    """It takes no query parameter; one is a 400 (common.http.StrictQueryParameters)."""
    description = schema["paths"]["/api/health/"]["get"]["responses"]["400"]["description"]
    assert "takes none" in description and "NUL" in description


@pytest.mark.parametrize("path", ["/api/triggers/", "/api/triggers/cancel/"])
def test_the_400_for_an_unknown_workflow_is_documented(schema, path):
    assert (
        "workflow named does not exist"
        in schema["paths"][path]["post"]["responses"]["400"]["description"]
    )


def test_the_422_says_it_names_the_parameters_that_differ(schema):
    description = schema["paths"]["/api/triggers/"]["post"]["responses"]["422"]["description"]
    assert "names the ones that differ" in description


def test_suppression_filters_are_parameters_of_the_list_only(schema):
    operations = schema["paths"]["/api/suppressions/"]
    listed = {p["name"] for p in operations["get"]["parameters"]}
    assert {"channel", "recipient", "scope", "reason", "page"} <= listed
    assert [p for p in operations["post"].get("parameters", []) if p["in"] == "query"] == []


def test_every_request_body_says_it_takes_no_other_fields(schema):
    components = schema["components"]["schemas"]
    for path, method, operation in operations(schema):
        for media in operation.get("requestBody", {}).get("content", {}).values():
            body = media["schema"]
            if "$ref" in body:
                body = components[body["$ref"].rsplit("/", 1)[-1]]
            assert body["additionalProperties"] is False, (method, path)
    assert components["TriggerBulkItem"]["additionalProperties"] is False
    # A payload stays a free-form object; a node is one of the registered node types, each with
    # its own fields only (the validator refuses any other, naming it).
    assert components["TriggerInput"]["properties"]["payload"]["additionalProperties"] == {}
    nodes = components["WorkflowInput"]["properties"]["nodes"]["items"]["oneOf"]
    assert nodes and all(node["additionalProperties"] is False for node in nodes)


def test_the_strict_mechanism_lends_no_description_to_what_uses_it(schema):
    """drf-spectacular shows an inherited class docstring as a description."""
    assert "description" not in schema["components"]["schemas"]["TriggerBulkInput"]
    assert schema["paths"]["/api/triggers/"]["get"]["description"] == (
        "Needs an API key with the `trigger` scope. A key limited to workflows: filtered: its "
        "workflows' objects only (another's: 404, or absent from a list)."
    )
