"""Contract details every client relies on: JSON errors everywhere, a valid OpenAPI schema."""

import pytest
import yaml
from rest_framework.test import APIClient

from tests.workers.helpers import due_trigger, logged_failure

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path",
    [
        "/api/triggers/not-a-uuid/",
        "/api/nothing-here/",
        "/api/triggers/00000000-0000-0000-0000-000000000000/logs/",
    ],
)
def test_not_found_under_api_is_json(api_client, path):
    response = api_client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json") and response.json()["detail"]


def test_log_filter_with_bad_trigger_id_names_the_field(api_client):
    response = api_client.get("/api/logs/?trigger=xyz")
    assert response.status_code == 400 and "trigger" in response.json()["errors"]


def test_schema_declares_bearer_auth_and_paginated_lists():
    # The default (YAML) document, parsed by libyaml: the pure-Python parser takes a second.
    schema = yaml.load(APIClient().get("/api/schema/").content, Loader=yaml.CSafeLoader)
    assert schema["components"]["securitySchemes"]["ApiKey"]["scheme"] == "bearer"
    listing = schema["paths"]["/api/triggers/"]["get"]["responses"]["200"]["content"]
    ref = listing["application/json"]["schema"]["$ref"]
    assert ref.endswith("PaginatedTriggerOutputList")
    operation_ids = [op["operationId"] for path in schema["paths"].values() for op in path.values()]
    assert len(operation_ids) == len(set(operation_ids))


@pytest.mark.parametrize(
    "path", ["/api/logs/?node_id=a%00b", "/api/triggers/?workflow=%00", "/api/logs/?%00=x"]
)
def test_nul_in_a_query_parameter_is_400_not_500(api_client, path):
    response = api_client.get(path)
    assert response.status_code == 400 and "NUL" in response.json()["detail"]


@pytest.mark.parametrize(
    "body",
    [
        '{"workflow": "w", "idempotency_key": "k", "payload": {"name": "a\\u0000b"}}',
        '{"workflow": "w", "idempotency_key": "k", "payload": {"a\\u0000": 1}}',
        '{"workflow": "w", "idempotency_key": "k", "payload": {"list": ["x", "\\u0000"]}}',
    ],
)
def test_nul_in_a_json_body_is_400_not_500(api_client, body):
    response = api_client.generic("POST", "/api/triggers/", body, content_type="application/json")
    assert response.status_code == 400 and "NUL" in response.json()["detail"]


def test_step_logs_name_their_workflow_by_key_as_triggers_do(api_client):
    trigger = due_trigger()
    logged_failure(trigger, 1)
    shown = api_client.get(f"/api/triggers/{trigger.pk}/").json()["workflow"]
    for path in (f"/api/triggers/{trigger.pk}/logs/", f"/api/logs/?trigger={trigger.pk}"):
        body = api_client.get(path).json()
        (log,) = body["results"] if isinstance(body, dict) else body
        assert log["workflow"] == shown == trigger.workflow.key
    schema = APIClient().get("/api/schema/?format=json").json()
    assert schema["components"]["schemas"]["StepLog"]["properties"]["workflow"]["type"] == "string"


def test_every_door_spells_its_actor_the_same_way(admin_client):
    from rest_framework.test import APIClient

    from common.actors import actor_of, command_actor
    from triggers.api_keys import api_key_create

    _, key = api_key_create(name="door-test")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert actor_of(client.get("/api/workflows/").wsgi_request) == "api:door-test"
    assert actor_of(admin_client.get("/admin/").wsgi_request) == "admin:operator"
    assert command_actor("retry_failed") == "manage.py retry_failed"
