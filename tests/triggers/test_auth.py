"""API keys: Bearer auth, stored hashed, printed once by create_api_key."""

from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from triggers.models import ApiKey

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("header", [None, "Bearer nope", "Token abc", "Bearer "])
def test_missing_or_wrong_key_is_401(header):
    client = APIClient()
    if header:
        client.credentials(HTTP_AUTHORIZATION=header)
    for path in ("/api/triggers/", "/api/workflows/", "/api/logs/"):
        response = client.get(path)
        assert response.status_code == 401, path
        assert "detail" in response.json()


def test_create_api_key_prints_key_last_and_stores_only_its_hash():
    out = StringIO()
    call_command("create_api_key", "billing", stdout=out, stderr=StringIO())
    key = out.getvalue().strip().splitlines()[-1]
    stored = ApiKey.objects.get(name="billing")
    assert key not in (stored.key_hash, stored.prefix) and len(stored.key_hash) == 64
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/api/triggers/").status_code == 200


def test_revoked_key_is_refused():
    from triggers.api_keys import api_key_create, api_key_revoke

    api_key, key = api_key_create(name="old")
    api_key_revoke(api_key=api_key)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/api/triggers/").status_code == 401


def test_health_and_schema_are_public():
    client = APIClient()
    assert client.get("/api/schema/").status_code == 200
    assert client.get("/api/docs/").status_code == 200
    health = client.get("/api/health/")
    # Public, and says only how things are (tests/security/test_health.py has the details).
    assert health.status_code == 200 and health.json() == {"status": "ok"}
