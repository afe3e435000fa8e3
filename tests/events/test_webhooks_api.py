"""/api/webhooks/ (docs/design/api.md, HTTP API, "Webhooks"): create with the secret shown once,
the services' checks as field errors, list, read, change, delete, rotate, the attempt log, the
address rule at the door. Sends go through the real dispatcher to the loopback receiver,
in-process; with the stack's workers in test_webhooks_api_e2e.py.

Over 500 lines: one case per rule of the endpoints' table in docs/design/api.md ("Webhooks"), in the
table's order, sharing the loopback receiver and its signed-request checks."""

from __future__ import annotations

import base64
import uuid
from typing import Any

import pytest
from rest_framework.test import APIClient
from standardwebhooks.webhooks import WebhookVerificationError

from events import catalog
from events.models import DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from events.services.dispatcher import delivery_send
from events.signing import MIN_SECRET_BYTES, SECRET_PREFIX, secret_hint
from tests.conftest import unique
from tests.events.support import verified
from tests.factories import WorkflowFactory
from tests.security.test_schema_constraints import assert_refused, broken, request_schema
from tests.support.smtp import free_port

pytestmark = pytest.mark.django_db

ROOT = "/api/webhooks/"
SHOWN = {
    "id",
    "url",
    "events",
    "workflows",
    "description",
    "enabled",
    "disabled_at",
    "disabled_reason",
    "failed_events",
    "secret_hint",
    "created_at",
    "updated_at",
}


def create(client: APIClient, **body: Any):
    body.setdefault("url", f"http://127.0.0.1:9/{unique('hook')}")
    body.setdefault("events", ["*"])
    return client.post(ROOT, body, format="json")


def created(client: APIClient, **body: Any) -> dict[str, Any]:
    response = create(client, **body)
    assert response.status_code == 201, response.content[:500]
    return response.json()


def patch(client: APIClient, endpoint_id: Any, body: Any):
    return client.patch(f"{ROOT}{endpoint_id}/", body, format="json")


def without(data: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in names}


def send(event_id: str) -> str | None:
    """Deliver the one delivery of event `event_id` now, as a worker would."""
    delivery = WebhookDelivery.objects.get(event__event_id=event_id)
    return delivery_send(delivery.pk, worker_id="test")


def secret_bytes(secret: str) -> bytes:
    assert secret.startswith(SECRET_PREFIX), secret
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)


# --- create: the secret once -------------------------------------------------------------


def test_create_answers_201_with_the_endpoint_and_its_whole_secret(api_client):
    workflow = WorkflowFactory()
    url = f"http://127.0.0.1:9/{unique('hook')}"

    data = created(
        api_client,
        url=url,
        events=["trigger.failed", "trigger.completed", "trigger.completed"],
        workflows=[workflow.key],
        description="billing alerts",
    )

    assert set(data) == SHOWN | {"secret"}
    assert len(secret_bytes(data["secret"])) >= MIN_SECRET_BYTES
    assert data["url"] == url and data["description"] == "billing alerts"
    assert data["events"] == ["trigger.completed", "trigger.failed"]  # the service's order
    assert data["workflows"] == [workflow.key]
    assert data["enabled"] is True and data["disabled_at"] is None and data["failed_events"] == 0
    assert data["secret_hint"] == secret_hint(data["secret"])
    stored = WebhookEndpoint.objects.get(pk=data["id"])
    assert stored.secret == data["secret"] and stored.created_by.startswith("api:")


def test_the_secret_is_shown_once_then_only_its_hint(api_client):
    data = created(api_client)
    secret = data["secret"]

    one = api_client.get(f"{ROOT}{data['id']}/").json()
    listed = api_client.get(ROOT).json()
    changed = patch(api_client, data["id"], {"description": "x"}).json()

    for shown in (one, changed, *listed["results"]):
        assert "secret" not in shown and secret not in str(shown)
    assert one["secret_hint"] == f"{SECRET_PREFIX}…{secret[-4:]}"
    assert set(one) == SHOWN


def test_every_new_endpoint_gets_a_secret_of_its_own(api_client):
    secrets = {created(api_client)["secret"] for _ in range(3)}
    assert len(secrets) == 3


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ({"url": "ftp://127.0.0.1/hook"}, "url", "http or https"),
        ({"url": "http://user:pw@127.0.0.1/hook"}, "url", "user name or password"),
        ({"url": "not a url"}, "url", "http or https"),
        ({"events": ["trigger.exploded"]}, "events", "unknown event type(s) trigger.exploded"),
        ({"events": ["ping"]}, "events", "unknown event type(s) ping"),
        ({"events": []}, "events", "at least one event type"),
        ({"workflows": ["no-such-workflow"]}, "workflows", "no workflow with the key(s)"),
    ],
    ids=[
        "ftp",
        "userinfo",
        "not a url",
        "unknown event",
        "ping",
        "no events",
        "unknown workflow",
    ],
)
def test_what_the_service_refuses_is_a_400_naming_the_field(api_client, body, field, says):
    response = create(api_client, **body)

    assert response.status_code == 400, response.content[:300]
    data = response.json()
    assert list(data["errors"]) == [field] and says in data["errors"][field][0]
    assert field in data["detail"]
    assert not WebhookEndpoint.objects.exists()


def test_every_wrong_field_is_named_at_once(api_client):
    response = create(api_client, url="gopher://x", events=["nope"], workflows=["nowhere"])
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"url", "events", "workflows"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": 12}, "url"),
        ({"url": None}, "url"),
        ({"url": ["http://127.0.0.1/"]}, "url"),
        ({"events": "trigger.completed"}, "events"),
        ({"events": [1]}, "events"),
        ({"events": None}, "events"),
        ({"events": {"trigger.completed": True}}, "events"),
        ({"workflows": "welcome"}, "workflows"),
        ({"workflows": [None]}, "workflows"),
        ({"description": 5}, "description"),
        ({"description": "x" * 501}, "description"),
        ({"url": "http://127.0.0.1/" + "x" * 2000}, "url"),
    ],
)
def test_a_value_of_the_wrong_type_is_a_400_naming_the_field(api_client, body, field):
    response = create(api_client, **body)
    assert response.status_code == 400, response.content[:300]
    assert field in response.json()["errors"]
    assert not WebhookEndpoint.objects.exists()


@pytest.mark.parametrize("missing", ["url", "events"])
def test_url_and_events_are_required(api_client, missing):
    body = {"url": "http://127.0.0.1:9/hook", "events": ["*"]}
    del body[missing]
    response = api_client.post(ROOT, body, format="json")
    assert response.status_code == 400 and missing in response.json()["errors"]


@pytest.mark.parametrize("body", [["url"], "url", 3])
def test_a_body_that_is_not_an_object_is_a_400_naming_body(api_client, body):
    response = api_client.post(ROOT, body, format="json")
    assert response.status_code == 400 and "body" in response.json()["errors"]


def test_nul_in_a_field_is_refused_at_the_door(api_client):
    body = '{"url": "http://127.0.0.1:9/a\\u0000b", "events": ["*"]}'
    response = api_client.generic("POST", ROOT, body, content_type="application/json")
    assert response.status_code == 400 and "NUL" in response.json()["detail"]


# --- the address rule at the door (no packet leaves: these are literals and /etc/hosts) -----


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://localhost/",
        "http://10.0.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "https://0.0.0.0:8443/",
    ],
)
def test_a_url_to_a_non_public_address_is_refused(api_client, settings, url):
    settings.NOTIFLOW_WEBHOOK_ALLOW_PRIVATE = False

    response = create(api_client, url=url)

    assert response.status_code == 400, response.content[:300]
    (message,) = response.json()["errors"]["url"]
    assert "non-public address" in message
    assert not WebhookEndpoint.objects.exists()


def test_changing_the_url_to_a_non_public_address_is_refused(api_client, settings):
    data = created(api_client)
    settings.NOTIFLOW_WEBHOOK_ALLOW_PRIVATE = False

    response = patch(api_client, data["id"], {"url": "http://10.0.0.1/"})

    assert response.status_code == 400 and "non-public" in response.json()["errors"]["url"][0]
    assert WebhookEndpoint.objects.get(pk=data["id"]).url == data["url"]


def test_an_endpoint_whose_url_fails_the_rule_now_can_still_be_disabled_and_edited(
    api_client, settings
):
    # Its stored URL is not judged again unless it changes (it is, at every send): an operator
    # must be able to disable an endpoint whose host moved, or stopped resolving.
    data = created(api_client)
    settings.NOTIFLOW_WEBHOOK_ALLOW_PRIVATE = False

    disabled = patch(api_client, data["id"], {"enabled": False, "description": "host moved"})

    assert disabled.status_code == 200, disabled.content[:300]
    assert disabled.json()["enabled"] is False and disabled.json()["description"] == "host moved"


def test_an_endpoint_whose_workflow_was_deleted_can_still_be_disabled_but_not_given_new_unknown_keys(
    api_client,
):
    workflow = WorkflowFactory()
    data = created(api_client, workflows=[workflow.key])
    workflow.delete()  # it never ran: DELETE /api/workflows/<key>/ removes it

    disabled = patch(api_client, data["id"], {"enabled": False})
    assert disabled.status_code == 200, disabled.content[:300]
    assert disabled.json()["workflows"] == [workflow.key]
    added = patch(api_client, data["id"], {"workflows": [workflow.key, "no-such-workflow"]})
    assert added.status_code == 400
    assert "no-such-workflow" in added.json()["errors"]["workflows"][0]


# --- list, read, change, delete ----------------------------------------------------------


def test_list_is_paginated_oldest_first(api_client):
    ids = [created(api_client)["id"] for _ in range(3)]

    data = api_client.get(ROOT).json()

    assert data["count"] == 3 and data["next"] is None
    assert [endpoint["id"] for endpoint in data["results"]] == ids
    assert api_client.get(f"{ROOT}?page=2").status_code == 404
    assert api_client.get(f"{ROOT}?page=x").status_code == 400


def test_get_shows_the_endpoint(api_client):
    data = created(api_client, description="d")
    shown = api_client.get(f"{ROOT}{data['id']}/").json()
    assert shown == without(data, "secret")


def test_patch_changes_what_is_given_and_keeps_the_rest(api_client):
    workflow = WorkflowFactory()
    data = created(api_client, events=["trigger.completed"], description="before")
    url = f"http://127.0.0.1:9/{unique('moved')}"

    response = patch(
        api_client,
        data["id"],
        {"url": url, "events": ["trigger.failed", "*"], "workflows": [workflow.key]},
    )

    assert response.status_code == 200, response.content[:300]
    changed = response.json()
    assert changed["url"] == url and changed["events"] == ["*"]
    assert changed["workflows"] == [workflow.key] and changed["description"] == "before"
    assert changed["updated_at"] > data["updated_at"]
    assert WebhookEndpoint.objects.get(pk=data["id"]).secret == data["secret"]
    again = patch(api_client, data["id"], {}).json()
    assert without(again, "updated_at") == without(changed, "updated_at")


def test_patch_refuses_what_create_refuses(api_client):
    data = created(api_client)
    for body, field in [
        ({"events": []}, "events"),
        ({"events": ["nope"]}, "events"),
        ({"workflows": ["nowhere"]}, "workflows"),
        ({"url": "ftp://127.0.0.1/"}, "url"),
        ({"enabled": "true"}, "enabled"),
        ({"enabled": 1}, "enabled"),
        ({"enabled": None}, "enabled"),
        ({"description": None}, "description"),
    ]:
        response = patch(api_client, data["id"], body)
        assert response.status_code == 400, (body, response.content[:300])
        assert field in response.json()["errors"], body
    assert patch(api_client, data["id"], ["enabled"]).json()["errors"].keys() == {"body"}
    assert api_client.get(f"{ROOT}{data['id']}/").json() == without(data, "secret")


def test_patch_disables_and_enables(api_client):
    data = created(api_client)

    disabled = patch(api_client, data["id"], {"enabled": False}).json()
    assert disabled["enabled"] is False and disabled["disabled_at"] is not None
    assert disabled["disabled_reason"] == "disabled by an operator"
    again = patch(api_client, data["id"], {"enabled": False}).json()
    assert without(again, "updated_at") == without(disabled, "updated_at")  # still as it was

    enabled = patch(api_client, data["id"], {"enabled": True}).json()
    assert enabled["enabled"] is True and enabled["disabled_at"] is None
    assert enabled["disabled_reason"] == "" and enabled["failed_events"] == 0


def test_enabling_makes_the_events_it_kept_due_with_attempts_afresh(api_client):
    data = created(api_client)
    patch(api_client, data["id"], {"enabled": False})
    ping = api_client.post(f"{ROOT}{data['id']}/test/").json()
    kept = WebhookDelivery.objects.get(event__event_id=ping["event_id"])
    assert send(ping["event_id"]) is None  # a disabled endpoint's delivery is not sent
    WebhookDelivery.objects.filter(pk=kept.pk).update(attempts=3)

    patch(api_client, data["id"], {"enabled": True})

    kept.refresh_from_db()
    assert kept.status == DeliveryStatus.PENDING and kept.attempts == 0
    assert kept.nudged_at is not None  # nudged after commit (end to end: the e2e test)


def test_delete_removes_the_endpoint_and_its_deliveries_and_keeps_its_attempts(
    api_client, receiver
):
    data = created(api_client, url=receiver.url(f"/ok/{unique('hook')}"))
    ping = api_client.post(f"{ROOT}{data['id']}/test/").json()
    assert send(ping["event_id"]) == DeliveryStatus.DELIVERED

    response = api_client.delete(f"{ROOT}{data['id']}/")

    assert response.status_code == 204 and response.content == b""
    assert api_client.get(f"{ROOT}{data['id']}/").status_code == 404
    assert not WebhookDelivery.objects.filter(endpoint_id=data["id"]).exists()
    assert WebhookAttempt.objects.filter(endpoint_id=data["id"]).count() == 1
    assert api_client.delete(f"{ROOT}{data['id']}/").status_code == 404


# --- rotate, test, deliveries ------------------------------------------------------------


def test_after_rotation_requests_verify_with_the_new_secret_and_not_the_old(api_client, receiver):
    path = f"/ok/{unique('hook')}"
    data = created(api_client, url=receiver.url(path))
    old = data["secret"]

    response = api_client.post(f"{ROOT}{data['id']}/rotate-secret/")

    assert response.status_code == 200
    rotated = response.json()
    new = rotated["secret"]
    assert new != old and len(secret_bytes(new)) >= MIN_SECRET_BYTES
    assert set(rotated) == SHOWN | {"secret"} and rotated["secret_hint"] == secret_hint(new)
    assert "secret" not in api_client.get(f"{ROOT}{data['id']}/").json()

    ping = api_client.post(f"{ROOT}{data['id']}/test/").json()
    assert send(ping["event_id"]) == DeliveryStatus.DELIVERED
    (request,) = receiver.received(path)
    assert verified(request, new)["id"] == ping["event_id"]
    with pytest.raises(WebhookVerificationError):
        verified(request, old)


def test_the_test_ping_is_a_signed_cloud_event_to_that_endpoint_alone(api_client, receiver):
    path = f"/ok/{unique('hook')}"
    data = created(api_client, url=receiver.url(path))
    other = created(api_client, url=receiver.url(f"/ok/{unique('other')}"))

    response = api_client.post(f"{ROOT}{data['id']}/test/")

    assert response.status_code == 202
    ping = response.json()
    assert ping["type"] == catalog.cloud_type(catalog.PING) == "notiflow.ping"
    assert not WebhookDelivery.objects.filter(endpoint_id=other["id"]).exists()
    assert send(ping["event_id"]) == DeliveryStatus.DELIVERED
    (request,) = receiver.received(path)
    event = verified(request, data["secret"])
    assert request.webhook_id == event["id"] == ping["event_id"]
    assert event["type"] == "notiflow.ping" and event["data"]["endpoint"] == data["id"]


def test_deliveries_lists_the_attempts_newest_first(api_client, receiver):
    data = created(api_client, url=receiver.url(f"/ok/{unique('hook')}"))
    first = api_client.post(f"{ROOT}{data['id']}/test/").json()
    assert send(first["event_id"]) == DeliveryStatus.DELIVERED
    # The receiver "moves": nothing listens on this port any more.
    patch(api_client, data["id"], {"url": f"http://127.0.0.1:{free_port()}/gone"})
    second = api_client.post(f"{ROOT}{data['id']}/test/").json()
    assert send(second["event_id"]) == DeliveryStatus.PENDING  # to be retried

    response = api_client.get(f"{ROOT}{data['id']}/deliveries/")

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2
    newest, oldest = body["results"]
    assert newest["event_id"] == second["event_id"] and oldest["event_id"] == first["event_id"]
    assert newest["id"] > oldest["id"]
    assert set(newest) == {
        "id",
        "event_id",
        "event_type",
        "attempt",
        "state",
        "status_code",
        "error",
        "duration_ms",
        "created_at",
    }
    assert newest["state"] == oldest["state"] == "finished"
    assert (oldest["event_type"], oldest["attempt"], oldest["status_code"]) == (
        "notiflow.ping",
        1,
        200,
    )
    assert oldest["error"] == "" and oldest["duration_ms"] >= 0
    assert newest["status_code"] is None and "could not connect" in newest["error"]


def test_another_endpoints_attempts_are_not_listed(api_client, receiver):
    one = created(api_client, url=receiver.url(f"/ok/{unique('one')}"))
    two = created(api_client, url=receiver.url(f"/ok/{unique('two')}"))
    ping = api_client.post(f"{ROOT}{one['id']}/test/").json()
    send(ping["event_id"])

    assert api_client.get(f"{ROOT}{two['id']}/deliveries/").json()["count"] == 0
    assert api_client.get(f"{ROOT}{one['id']}/deliveries/").json()["count"] == 1


# --- the door: keys, unknown ids, the schema ---------------------------------------------

OPERATIONS = [
    ("get", ""),
    ("post", ""),
    ("get", "{id}/"),
    ("patch", "{id}/"),
    ("delete", "{id}/"),
    ("post", "{id}/rotate-secret/"),
    ("post", "{id}/test/"),
    ("get", "{id}/deliveries/"),
]


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_without_a_key_every_operation_is_401(api_client, method, path):
    endpoint_id = created(api_client)["id"]
    anonymous = APIClient()

    response = getattr(anonymous, method)(ROOT + path.format(id=endpoint_id), {}, format="json")

    assert response.status_code == 401 and response.json()["detail"]
    wrong = APIClient()
    wrong.credentials(HTTP_AUTHORIZATION="Bearer nf_wrong")
    assert getattr(wrong, method)(ROOT + path.format(id=endpoint_id)).status_code == 401
    assert WebhookEndpoint.objects.count() == 1


@pytest.mark.parametrize(("method", "path"), [op for op in OPERATIONS if "{id}" in op[1]])
def test_an_unknown_id_is_a_json_404(api_client, method, path):
    unknown = uuid.uuid4()
    response = getattr(api_client, method)(ROOT + path.format(id=unknown), {}, format="json")
    assert response.status_code == 404
    assert response.json()["detail"] == f"no webhook endpoint {str(unknown)!r}"
    not_a_uuid = getattr(api_client, method)(ROOT + path.format(id="nope"), {}, format="json")
    assert not_a_uuid.status_code == 404


def test_the_schema_documents_every_operation_and_its_answers(api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    paths = schema["paths"]
    expected = {
        ("/api/webhooks/", "get"): "200",
        ("/api/webhooks/", "post"): "201",
        ("/api/webhooks/{endpoint_id}/", "get"): "200",
        ("/api/webhooks/{endpoint_id}/", "patch"): "200",
        ("/api/webhooks/{endpoint_id}/", "delete"): "204",
        ("/api/webhooks/{endpoint_id}/rotate-secret/", "post"): "200",
        ("/api/webhooks/{endpoint_id}/test/", "post"): "202",
        ("/api/webhooks/{endpoint_id}/deliveries/", "get"): "200",
    }
    for (path, method), success in expected.items():
        responses = paths[path][method]["responses"]
        assert {success, "400", "401", "404"} <= set(responses), (path, method)
    components = schema["components"]["schemas"]
    assert "secret" in components["WebhookEndpointWithSecret"]["required"]
    assert "secret" not in components["WebhookEndpoint"]["properties"]
    listing = paths["/api/webhooks/{endpoint_id}/deliveries/"]["get"]["responses"]["200"]
    assert listing["content"]["application/json"]["schema"]["$ref"].endswith(
        "PaginatedWebhookAttemptList"
    )


def test_the_webhook_api_refuses_each_body_the_schema_rules_out(api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    properties = request_schema(schema, "/api/webhooks/", "post")["properties"]
    cases = list(broken(properties))
    assert {"url", "events", "description"} <= {name for name, _ in cases}
    assert properties["events"]["items"]["$ref"].endswith("EventsEnum")
    enum = schema["components"]["schemas"]["EventsEnum"]["enum"]
    assert sorted(enum) == sorted(catalog.SUBSCRIBABLE)
    cases.append(("events", ["not-in-the-enum"]))
    for name, value in cases:
        body = {"url": "http://127.0.0.1:9/hook", "events": ["*"], name: value}
        assert_refused(api_client.post(ROOT, body, format="json"), name)
    assert not WebhookEndpoint.objects.exists()
