"""A workflow's preference category and `required` (docs/design/recipients.md, "Preferences"): a category
the operator made, beside the marketing switch; an unknown or malformed one is a 400 naming
`preference_category`; both are stored only when set, so a workflow that names neither keeps its
stored definition and its version."""

import pytest

from recipients.models import Category
from tests.conftest import unique
from tests.factories import chain, email_node
from workflows.models import Workflow
from workflows.selectors import workflow_version_compiled

pytestmark = pytest.mark.django_db


def body(key: str, **overrides):
    return {"key": key, "name": "W", **chain(email_node()), **overrides}


def test_a_workflow_carries_its_preference_category_and_required_through_to_the_engine(
    api_client,
):
    Category.objects.create(slug="billing")
    key = unique("wf")

    made = api_client.post(
        "/api/workflows/", body(key, preference_category="billing", required=True), format="json"
    )

    assert made.status_code == 201, made.json()
    assert (made.json()["preference_category"], made.json()["required"]) == ("billing", True)
    workflow = Workflow.objects.get(key=key)
    assert workflow.definition["preference_category"] == "billing"
    compiled = workflow_version_compiled(workflow.current_version_id)
    assert (compiled.preference_category, compiled.required) == ("billing", True)


def test_neither_is_stored_when_not_set_and_a_marketing_workflow_is_in_marketing(api_client):
    key = unique("wf")

    made = api_client.post("/api/workflows/", body(key, category="marketing"), format="json")

    assert made.status_code == 201, made.json()
    assert (made.json()["preference_category"], made.json()["required"]) == ("", False)
    workflow = Workflow.objects.get(key=key)
    assert set(workflow.definition) == {"entry_node_id", "nodes", "edges", "category"}
    compiled = workflow_version_compiled(workflow.current_version_id)
    assert (compiled.preference_category, compiled.required) == ("marketing", False)


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"preference_category": "no-such-category"}, "preference_category"),
        ({"preference_category": "Not A Slug"}, "preference_category"),
        ({"required": "yes"}, "required"),
    ],
)
def test_an_unknown_category_or_a_bad_value_is_a_400_naming_it(api_client, fields, field):
    key = unique("wf")

    answer = api_client.post("/api/workflows/", body(key, **fields), format="json")

    assert answer.status_code == 400, answer.json()
    errors = answer.json()["errors"]
    named = {e["field"] for e in errors} if isinstance(errors, list) else set(errors)
    assert field in named, errors
    assert not Workflow.objects.filter(key=key).exists()


def test_a_patch_that_sets_the_category_makes_a_new_version(api_client):
    Category.objects.create(slug="comments")
    key = unique("wf")
    api_client.post("/api/workflows/", body(key), format="json")

    patched = api_client.patch(
        f"/api/workflows/{key}/", {"preference_category": "comments"}, format="json"
    )

    assert patched.status_code == 200, patched.json()
    assert (patched.json()["version"], patched.json()["preference_category"]) == (2, "comments")
