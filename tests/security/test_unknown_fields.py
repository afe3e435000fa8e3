"""An unknown or misspelled field is a 400 naming it, everywhere (issue 30, §1): a misspelled
optional field used to be dropped and its default used (`"catgory": "marketing"` stored a
transactional workflow, `"workflow": [...]` a webhook receiving every workflow's events). A near
miss gets a "did you mean". Query parameters the operation does not declare are a 400 too.

The walks below go over every operation of the OpenAPI schema, so a new endpoint is covered the
day it appears."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from content.services import catalog_put
from deliveries.models import Suppression
from events.models import WebhookEndpoint
from events.services.endpoints import endpoint_create
from inbox.tokens import recipient_token
from recipients.models import Category, Fanout, Recipient, Topic
from schedules.services import ScheduleRequest, schedule_put
from tenants.services import tenant_put
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node
from tests.triggers.support import new_trigger
from triggers.models import TriggerInstance
from workflows.models import Workflow, WorkflowVersion

pytestmark = pytest.mark.django_db

PUBLIC = {"/api/health/", "/api/schema/", "/api/docs/"}
UNKNOWN = "unknwn_field"


def operations() -> list[tuple[str, str, dict[str, Any]]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [
        (path, method, operation)
        for path, methods in schema["paths"].items()
        if path not in {"/api/schema/", "/api/docs/"}
        for method, operation in methods.items()
    ]


@pytest.fixture
def path_values() -> dict[str, str]:
    """A real resource for each path parameter, so that an operation gets past its lookup."""
    workflow = WorkflowFactory()
    endpoint = endpoint_create(url=f"http://127.0.0.1:9/{unique('hook')}", events=["*"])
    suppression = Suppression.objects.create(
        channel="email", recipient=f"{unique()}@example.com", reason="manual"
    )
    topic = Topic.objects.create(key=unique("topic"))
    fanout = Fanout.objects.create(
        workflow_key=workflow.key, topic_key=topic.key, idempotency_key="k", request_hash="h"
    )
    recipient = Recipient.objects.create(key=unique("user"))
    schedule, _ = schedule_put(
        ScheduleRequest(id=unique("s"), workflow=workflow.key, repeat="FREQ=DAILY", topic=topic.key)
    )
    return {
        "key": workflow.key,
        "recipient_id": recipient.key,
        "trigger_id": str(new_trigger(workflow).pk),
        "endpoint_id": str(endpoint.pk),
        "suppression_id": str(suppression.pk),
        "topic_key": topic.key,
        "fanout_id": str(fanout.pk),
        "action_id": str(uuid.uuid4()),  # any: the unknown parameter is refused first
        "schedule_id": schedule.pk,
        "recipient_key": unique("person"),
        "channel": "fcm",
        "category_slug": Category.objects.create(slug=unique("cat")).slug,
        "number": "1",
        "locale": catalog_put(locale="fr", messages={"hello": "Bonjour"})[0].locale,
        "tenant_id": tenant_put(tenant_id=unique("tenant"), fields={"name": "T"})[0].id,
    }


def filled(path: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda match: values[match.group(1)], path)


def send(client: APIClient, method: str, url: str, body: Any = None):
    """`client` (an API key's) calls `url`; the in-app inbox's feed API takes a recipient's
    token instead (inbox/auth.py)."""
    if url.startswith("/api/inbox/"):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Recipient ada:{recipient_token('ada')}")
    return getattr(client, method)(url, body, format="json")


def test_every_write_operation_refuses_an_unknown_field_naming_it(api_client, path_values):
    refused_wrongly = []
    writes = [(p, m) for p, m, _ in operations() if m in {"post", "put", "patch", "delete"}]
    assert len(writes) >= 15  # the walk walks
    for path, method in writes:
        response = send(api_client, method, filled(path, path_values), {UNKNOWN: 1})
        body = response.json() if response.content else {}
        if response.status_code != 400 or UNKNOWN not in body.get("errors", {}):
            refused_wrongly.append((method, path, response.status_code, body))
    assert refused_wrongly == []
    # Nothing was done: the resources the paths name are all still there.
    assert Workflow.objects.filter(key=path_values["key"], active=True).exists()
    assert TriggerInstance.objects.filter(pk=path_values["trigger_id"], deleted_at=None).exists()
    assert WebhookEndpoint.objects.filter(pk=path_values["endpoint_id"]).exists()
    assert Suppression.objects.filter(pk=path_values["suppression_id"]).exists()
    assert Recipient.objects.filter(key=path_values["recipient_id"]).exists()


def test_every_write_operation_refuses_a_body_that_is_not_an_object(api_client, path_values):
    refused_wrongly = []
    for path, method, _ in operations():
        if method == "get":
            continue
        response = send(api_client, method, filled(path, path_values), [UNKNOWN])
        body = response.json() if response.content else {}
        expected = {
            "detail": "the request body must be a JSON object",
            "errors": {"body": ["the request body must be a JSON object"]},
        }
        if response.status_code != 400 or body != expected:
            refused_wrongly.append((method, path, response.status_code, body))
    assert refused_wrongly == []


def test_every_operation_refuses_an_unknown_query_parameter_naming_it(api_client, path_values):
    refused_wrongly = []
    for path, method, _ in operations():
        url = f"{filled(path, path_values)}?unknwn_param=1"
        response = send(api_client, method, url)
        body = response.json() if response.content else {}
        if response.status_code != 400 or "unknwn_param" not in body.get("errors", {}):
            refused_wrongly.append((method, path, response.status_code, body))
    assert refused_wrongly == []


def test_every_declared_query_parameter_is_accepted(api_client, path_values):
    """The schema's parameters and the ones the views accept are the same list; none of them is
    refused as unknown."""
    refused = []
    for path, method, operation in operations():
        for parameter in operation.get("parameters", []):
            if parameter["in"] != "query":
                continue
            url = f"{filled(path, path_values)}?{parameter['name']}=x"
            errors = send(api_client, method, url).json().get("errors", {})
            if any("unknown" in str(m) for m in errors.get(parameter["name"], [])):
                refused.append((method, path, parameter["name"]))
    assert refused == []


def definition() -> dict[str, Any]:
    return chain(email_node())


@pytest.mark.parametrize(
    ("path", "body", "expected"),
    [
        (
            "/api/workflows/",
            {"key": "w.typo", "name": "W", **definition(), "catgory": "marketing"},
            {"catgory": "unknown field; did you mean 'category'?"},
        ),
        (
            "/api/suppressions/",
            {"channel": "email", "recipient": "ann@example.com", "scop": "marketing"},
            {"scop": "unknown field; did you mean 'scope'?"},
        ),
        (
            "/api/webhooks/",
            {"url": "http://127.0.0.1:9/typo", "events": ["*"], "workflow": ["a"]},
            {"workflow": "unknown field; did you mean 'workflows'?"},
        ),
    ],
)
def test_a_misspelled_field_is_a_400_with_did_you_mean_and_stores_nothing(
    api_client, path, body, expected
):
    counts = (
        Workflow.objects.count(),
        Suppression.objects.count(),
        WebhookEndpoint.objects.count(),
    )

    response = api_client.post(path, body, format="json")

    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert {name: errors[name] for name in expected} == {k: [v] for k, v in expected.items()}
    (field,) = expected
    assert field in response.json()["detail"]
    assert counts == (
        Workflow.objects.count(),
        Suppression.objects.count(),
        WebhookEndpoint.objects.count(),
    )


def test_a_misspelled_trigger_field_is_a_400_naming_each(api_client):
    workflow = WorkflowFactory()
    body = {
        "workflow": workflow.key,
        "idempotency_key": "k",
        "cancelation_key": "order-1",
        "priorty": 9,
    }

    response = api_client.post("/api/triggers/", body, format="json")

    assert response.status_code == 400
    assert response.json()["errors"] == {
        "cancelation_key": ["unknown field; did you mean 'cancellation_key'?"],
        "priorty": ["unknown field; did you mean 'priority'?"],
    }
    assert not TriggerInstance.objects.filter(workflow__key=workflow.key).exists()


def test_an_unknown_field_far_from_any_names_the_known_ones(api_client):
    workflow = WorkflowFactory()

    response = api_client.patch(f"/api/workflows/{workflow.key}/", {"colour": "red"}, "json")

    assert response.status_code == 400
    (message,) = response.json()["errors"]["colour"]
    assert message.startswith("unknown field; the known ones are: ") and "category" in message
    assert WorkflowVersion.objects.filter(workflow=workflow).count() == 1


def test_unknown_and_invalid_fields_are_named_together(api_client):
    response = api_client.post("/api/suppressions/", {"channel": "fax", "scop": "all"}, "json")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"channel", "recipient", "scop"}


def test_a_query_parameter_near_a_known_one_gets_did_you_mean(api_client):
    response = api_client.get("/api/triggers/?workflw=x")
    assert response.status_code == 400
    assert response.json()["errors"] == {
        "workflw": ["unknown query parameter; did you mean 'workflow'?"]
    }


@pytest.mark.parametrize("path", ["/api/triggers/", "/api/logs/", "/api/workers/"])
def test_a_repeated_query_parameter_is_a_400(api_client, path):
    response = api_client.get(f"{path}?page=1&page=2")
    assert response.status_code == 400
    assert response.json()["errors"] == {"page": ["given more than once"]}


def test_a_body_for_an_operation_that_takes_none_may_be_empty(api_client):
    endpoint = endpoint_create(url=f"http://127.0.0.1:9/{unique('hook')}", events=["*"])
    bodies: list[dict[str, Any] | None] = [None, {}]
    for body in bodies:
        response = api_client.post(f"/api/webhooks/{endpoint.pk}/rotate-secret/", body, "json")
        assert response.status_code == 200, response.content
