"""Malformed credentials are refused as wrong ones are, never a 500 (docs/security/findings.md, "Malformed
credentials"; common/credentials.py): every credential-carrying header of every endpoint that
reads one, with non-ASCII, latin-1, control, NUL, very long and empty values, through Django's
test client and, as raw bytes, through the real gunicorn (the ASGI adapter of notiflow/asgi.py,
which also serves the inbox stream)."""

from __future__ import annotations

import base64
import http.client
from urllib.parse import urlsplit

import pytest
from django.test import Client

from inbox.tokens import recipient_token
from tests.deliveries.conftest import esps  # noqa: F401

MALFORMED = {
    "non-ASCII": "éé",
    "latin-1 byte": "\xff",
    "beyond latin-1": "€",  # a test client's: a WSGI string holds latin-1 only
    "lone surrogate": "\udcff",
    "NUL": "a\x00b",
    "control characters": "a\x01\x1f\x7f\x85b",
    "tab inside": "a\tb",
    "very long": "x" * 20_000,
    "empty": "",
}

# Our endpoints taking `Authorization: <scheme> <credentials>`: a malformed one is 401.
AUTHORIZATION = {
    "/api/triggers/": "Bearer",
    "/metrics": "Bearer",
    "/api/inbox/": "Recipient",
    "/api/inbox/stream/": "Recipient",
}


def authorizations(scheme: str, value: str) -> list[str]:
    """Malformed Authorization values of `scheme` around `value`: as the credentials, without
    the scheme, and (a recipient token) as either half of `<key>:<token>`."""
    values = [f"{scheme} {value}", value, f"{value} {value}"]
    if scheme == "Recipient":
        values += [f"Recipient alice:{value}", f"Recipient {value}:{recipient_token('alice')}"]
    return values


@pytest.fixture
def client(settings) -> Client:
    settings.NOTIFLOW_METRICS_TOKEN = "scrape-secret"
    settings.NOTIFLOW_RATE_LIMIT_INBOX = "off"
    return Client(raise_request_exception=False)


@pytest.mark.django_db
@pytest.mark.parametrize("value", MALFORMED.values(), ids=MALFORMED.keys())
@pytest.mark.parametrize("path", AUTHORIZATION)
def test_a_malformed_authorization_is_401_never_500(client, path, value):
    for header in authorizations(AUTHORIZATION[path], value):
        answer = client.get(path, HTTP_AUTHORIZATION=header)
        assert answer.status_code == 401, (header[:40], answer.content[:300])


@pytest.mark.django_db
@pytest.mark.usefixtures("esps")
@pytest.mark.parametrize("value", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_tracking_webhook_login_is_refused_never_500(client, value):
    """anymail's basic auth of the tracking webhooks (ANYMAIL_WEBHOOK_SECRET): its refusal is
    401 without credentials, 400 with wrong ones."""
    login = base64.b64encode(f"tracking:{value}".encode("utf-8", "surrogatepass")).decode()
    for header in [*authorizations("Basic", value), f"Basic {login}"]:
        answer = client.post("/deliveries/anymail/amazon_ses/tracking/", HTTP_AUTHORIZATION=header)
        assert answer.status_code in (400, 401), (header[:40], answer.content[:300])


@pytest.mark.django_db
@pytest.mark.parametrize("value", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_twilio_signature_is_403_never_500(client, settings, value):
    settings.TWILIO_AUTH_TOKEN = "twilio-test-auth-token"
    settings.NOTIFLOW_SMS_PROVIDERS = []
    settings.NOTIFLOW_SMS_BACKEND = "twilio"
    answer = client.post(
        "/deliveries/twilio/status/", {"MessageSid": "SM1"}, HTTP_X_TWILIO_SIGNATURE=value
    )
    assert answer.status_code == 403


# Bytes as a client may send them, and the answer: UTF-8, a lone latin-1 byte, a C1 control and a
# long value reach Django and are 401; the HTTP server itself refuses ASCII controls and NUL (400,
# before Django).
RAW = {
    b"\xc3\xa9\xc3\xa9": 401,
    b"\xff": 401,
    b"a\x85\x9fb": 401,
    b"x" * 8000: 401,
    b"a\x01\x1f\x7fb": 400,
    b"a\x00b": 400,
}


def raw_get(base_url: str, path: str, authorization: bytes) -> int:
    """The status of GET `path` with `authorization` sent as these very bytes."""
    url = urlsplit(base_url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        connection.putrequest("GET", path)
        connection.putheader("Authorization", authorization)
        connection.endheaders()
        return connection.getresponse().status
    finally:
        connection.close()


def test_malformed_credentials_through_gunicorn_are_refused_never_500(e2e):
    answers, expected = {}, {}
    for path, scheme in AUTHORIZATION.items():
        for raw, status in RAW.items():
            for header in (scheme.encode() + b" " + raw, b"Recipient alice:" + raw, raw):
                answers[path, header[:30]] = raw_get(e2e.base_url, path, header)
                expected[path, header[:30]] = status
    assert answers == expected
