"""`Authorization: Bearer <key>`: the scheme is case-insensitive (RFC 9110, 11.1), the key is not."""

import pytest
from rest_framework.test import APIClient

from triggers.api_keys import api_key_create

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
def test_the_bearer_scheme_is_accepted_in_any_case(scheme):
    _, key = api_key_create(name=f"case-{scheme}")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{scheme} {key}")
    assert client.get("/api/triggers/").status_code == 200


@pytest.mark.parametrize("scheme", ["Bearer", "bearer"])
def test_the_key_itself_stays_case_sensitive(scheme):
    _, key = api_key_create(name=f"exact-{scheme}")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{scheme} {key.swapcase()}")
    assert client.get("/api/triggers/").status_code == 401


@pytest.mark.parametrize("header", ["Bearerx abc", "Basic abc", "bearer", "Bearer  "])
def test_other_schemes_and_empty_keys_are_still_401(header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get("/api/triggers/")
    assert response.status_code == 401 and response.json()["detail"]
