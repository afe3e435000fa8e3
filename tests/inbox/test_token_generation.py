"""Inbox tokens per person (docs/security/recipients.md, "The recipient token"): a token carries its
recipient's generation; rotating their tokens or erasing the person raises it, and every token
of an earlier generation is a 401 on every read, also when the key comes back. A forged token
still costs no query; a signed one costs one primary-key lookup."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from inbox.tokens import recipient_token
from recipients.models import Recipient
from recipients.services import recipient_erase
from tests.conftest import unique
from tests.inbox.test_feed_api import message, reader
from triggers.api_keys import api_key_create

pytestmark = [pytest.mark.django_db]

READS = [
    ("get", "/api/inbox/", None),
    ("get", "/api/inbox/counts/", None),
    ("post", "/api/inbox/mark-all/", {"as": "seen"}),
    ("get", "/api/inbox/stream/", None),
]


def backend() -> APIClient:
    _, key = api_key_create(name=unique("backend"))  # a trigger key, as the token endpoint's
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return api


def rotate(api: APIClient, key: str, body: object = None):
    return api.post(f"/api/recipients/{key}/inbox-token/rotate/", body, format="json")


def codes(key: str, token: str) -> list[int]:
    api = reader(key, token)
    return [getattr(api, verb)(path, body, format="json").status_code for verb, path, body in READS]


def test_a_rotate_revokes_every_earlier_token_and_answers_the_one_that_works():
    key = Recipient.objects.create(key=unique("person")).key
    message(key)
    api, first = backend(), recipient_token(key)
    assert codes(key, first) == [200] * len(READS)

    rotated = rotate(api, key)

    assert rotated.status_code == 200, rotated.content
    second = rotated.json()["token"]
    assert second.startswith("1.")
    assert codes(key, first) == [401] * len(READS)
    assert "revoked" in reader(key, first).get("/api/inbox/").json()["detail"]
    assert codes(key, second) == [200] * len(READS)
    assert api.post(f"/api/recipients/{key}/inbox-token/").json() == {"token": second}
    third = rotate(api, key).json()["token"]
    assert third.startswith("2.") and codes(key, second) == [401] * len(READS)


def test_a_rotate_of_nobody_is_a_404_and_takes_no_field():
    api = backend()
    nobody = unique("nobody")
    assert (unknown := rotate(api, nobody)).status_code == 404
    assert unknown.json() == {"detail": f"no recipient {nobody!r}"}
    key = Recipient.objects.create(key=unique("person")).key
    answer = rotate(api, key, {"reason": "leaked"})
    assert answer.status_code == 400 and "reason" in answer.json()["errors"]


def test_erasing_a_person_revokes_their_tokens_also_when_the_key_comes_back():
    key = Recipient.objects.create(key=unique("person")).key
    before = recipient_token(key)
    assert codes(key, before) == [200] * len(READS)

    recipient_erase(key=key)

    assert codes(key, before) == [401] * len(READS)
    Recipient.objects.create(key=key)  # the client's id used again, for a new profile
    assert codes(key, before) == [401] * len(READS)
    issued = backend().post(f"/api/recipients/{key}/inbox-token/").json()["token"]
    assert issued.startswith("1.") and codes(key, issued) == [200] * len(READS)


def test_a_forged_generation_costs_no_query_and_a_signed_token_one_lookup():
    key = Recipient.objects.create(key=unique("person")).key
    legacy = recipient_token(key)
    for forged in (f"1.{legacy}", f"01.{legacy}", f"x.{legacy}", f"{'9' * 30}.{legacy}"):
        with CaptureQueriesContext(connection) as queries:
            answer = reader(key, forged).get("/api/inbox/counts/")
        assert answer.status_code == 401 and len(queries) == 0, forged
    with CaptureQueriesContext(connection) as queries:
        assert reader(key, legacy).get("/api/inbox/counts/").status_code == 200
    generation_reads = [q for q in queries if "inbox_token_generation" in q["sql"]]
    assert len(generation_reads) == 1 and len(queries) == 2, queries


def test_no_keys_token_of_one_generation_is_another_keys_of_another():
    later = recipient_token("ada", 1).partition(".")[2]
    for other in ("ada\x001", "1:ada", "ada1", "ada:1"):
        assert recipient_token(other) != later
        assert recipient_token(other, 1).partition(".")[2] != later
