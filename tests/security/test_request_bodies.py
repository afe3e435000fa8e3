"""Request bodies the API will not take are a JSON 4xx, never a 500 or Django's HTML page: JSON
nested past MAX_JSON_DEPTH (it used to end in a RecursionError) and bodies over
DATA_UPLOAD_MAX_MEMORY_SIZE (413)."""

from __future__ import annotations

import json

import pytest
import requests
from django.conf import settings
from rest_framework.test import APIClient

from common.http import MAX_JSON_DEPTH
from tests.conftest import unique


def nested(depth: int, *, kind: str = "list") -> str:
    """A JSON value `depth` containers deep: [[[]]] or {"k": {"k": {"k": 1}}} for 3."""
    if kind == "list":
        return "[" * depth + "]" * depth
    return '{"k": ' * depth + "1" + "}" * depth


def trigger_body(payload: str) -> str:
    """A trigger request whose payload's "a" is `payload`: two containers deeper than it."""
    return '{"workflow": "w", "idempotency_key": "k", "payload": {"a": ' + payload + "}}"


@pytest.mark.django_db
@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 400, 1000, 100_000])
@pytest.mark.parametrize("kind", ["list", "object"])
def test_json_nested_too_deeply_is_a_400_naming_the_limit(api_client, depth, kind):
    body = trigger_body(nested(depth - 2, kind=kind))
    for path in ("/api/triggers/", "/api/workflows/"):
        response = api_client.generic("POST", path, body, content_type="application/json")
        assert response.status_code == 400, (path, response.content[:300])
        assert f"more than {MAX_JSON_DEPTH} levels" in response.json()["detail"]


@pytest.mark.django_db
def test_json_at_the_depth_limit_is_accepted(api_client):
    # The body is an object (1), payload an object (2), its "a" the rest: MAX_JSON_DEPTH in all.
    body = trigger_body(nested(MAX_JSON_DEPTH - 2))
    response = api_client.generic("POST", "/api/triggers/", body, content_type="application/json")
    # Parsed and judged on its content: the workflow "w" does not exist.
    assert response.status_code == 400 and response.json()["errors"].keys() == {"workflow"}


@pytest.mark.django_db
def test_nul_is_still_refused_deep_inside_a_body(api_client):
    body = trigger_body('[[{"x": ["ok", "a\\u0000b"]}]]')
    response = api_client.generic("POST", "/api/triggers/", body, content_type="application/json")
    assert response.status_code == 400 and "NUL" in response.json()["detail"]


FORM = "application/x-www-form-urlencoded"


def too_big_body() -> bytes:
    return (
        json.dumps(
            {"workflow": "w", "idempotency_key": "k", "payload": {"a": "x" * 100}},
        )
        .encode()
        .replace(b"x" * 100, b"x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1))
    )


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/triggers/", "/api/workflows/"])
def test_a_body_over_the_size_limit_is_a_json_413(api_client, path):
    response = api_client.generic("POST", path, too_big_body(), content_type="application/json")
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert str(settings.DATA_UPLOAD_MAX_MEMORY_SIZE) in response.json()["detail"]


@pytest.mark.django_db
def test_outside_the_api_a_body_over_the_limit_keeps_djangos_400_page():
    response = APIClient().generic(
        "POST", "/admin/login/", b"username=" + too_big_body(), content_type=FORM
    )
    assert response.status_code == 400 and response["Content-Type"].startswith("text/html")


@pytest.mark.e2e
def test_gunicorn_answers_a_body_over_the_limit_with_a_json_413(api):
    response = api.session.post(
        f"{api.base}/api/triggers/",
        data=too_big_body(),
        headers={"Content-Type": "application/json", "Idempotency-Key": unique()},
        timeout=30,
    )
    assert response.status_code == 413, response.text[:300]
    assert response.headers["Content-Type"] == "application/json"
    assert response.json()["detail"]
    # gunicorn closes a connection that leaves more than 64 KB of body unread (it cannot find the
    # next request behind it); the server itself goes on.
    fresh = requests.get(f"{api.base}/api/triggers/", headers=api.session.headers, timeout=10)
    assert fresh.status_code == 200


@pytest.mark.e2e
def test_gunicorn_answers_deep_json_with_a_400(api):
    response = api.session.post(
        f"{api.base}/api/triggers/",
        data=trigger_body(nested(5000)),
        headers={"Content-Type": "application/json"},
        timeout=30,
    )
    assert response.status_code == 400 and "levels" in response.json()["detail"]
