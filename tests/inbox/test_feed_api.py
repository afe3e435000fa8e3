"""The feed API in-process (docs/design/inbox.md, "In-app inbox"; docs/security/recipients.md, "The recipient
token"): a recipient token reads and marks its recipient's messages and nobody else's, a wrong
one is a 401 without a query, marks announce their events, the feed pages newest first, and
only the allowed origins get CORS headers."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from events import catalog
from events.models import OutboxEvent, WebhookEndpoint
from events.services.endpoints import endpoint_create
from inbox.models import InboxMessage
from inbox.services import inbox_erase
from inbox.tokens import recipient_token
from tests.conftest import unique
from triggers.api_keys import api_key_create

pytestmark = [pytest.mark.django_db]


def message(recipient: str, title: str = "Hi", *, age: int = 0, **fields) -> InboxMessage:
    return InboxMessage.objects.create(
        recipient=recipient,
        trigger_id=uuid.uuid4(),
        node_id="bell",
        workflow_key="welcome",
        title=title,
        body=title,
        body_html=f"<p>{title}</p>",
        created_at=timezone.now() - timedelta(seconds=age),
        **fields,
    )


def reader(recipient: str, token: str | None = None) -> APIClient:
    api = APIClient()
    api.credentials(
        HTTP_AUTHORIZATION=f"Recipient {recipient}:{token or recipient_token(recipient)}"
    )
    return api


def test_a_recipient_reads_their_feed_newest_first_and_nobody_elses():
    older, newer = message("ada", "older", age=10), message("ada", "newer", age=1)
    message("bob", "not ada's")

    answer = reader("ada").get("/api/inbox/")

    assert answer.status_code == 200, answer.json()
    assert [m["id"] for m in answer.json()["results"]] == [str(newer.pk), str(older.pk)]
    assert answer.json()["next_cursor"] is None
    shown = answer.json()["results"][0]
    assert shown["title"] == "newer" and shown["body_html"] == "<p>newer</p>"
    assert (shown["seen_at"], shown["read_at"], shown["archived_at"]) == (None, None, None)


def test_another_recipients_token_or_a_wrong_one_is_a_401_without_a_query():
    message("ada")
    for api in (reader("ada", recipient_token("bob")), reader("ada", "0" * 64)):
        with CaptureQueriesContext(connection) as queries:
            answer = api.get("/api/inbox/")
        assert answer.status_code == 401, answer.json()
        assert "not this recipient's" in answer.json()["detail"]
        assert len(queries) == 0
    assert APIClient().get("/api/inbox/counts/").status_code == 401


def test_an_api_key_does_not_read_a_feed():
    _, key = api_key_create(name=unique("k"))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert api.get("/api/inbox/").status_code == 401


def test_the_token_changes_with_the_secret():
    before = recipient_token("ada")
    with override_settings(NOTIFLOW_INBOX_SECRET="another"):
        assert recipient_token("ada") != before
        assert reader("ada", before).get("/api/inbox/").status_code == 401


def test_the_feed_pages_with_a_cursor_and_filters():
    made = [message("ada", f"m{i}", age=i) for i in range(5)]  # m0 newest
    read = made[1]
    read.read_at = timezone.now()
    read.save()
    api = reader("ada")

    first = api.get("/api/inbox/", {"limit": 2}).json()
    second = api.get("/api/inbox/", {"limit": 2, "cursor": first["next_cursor"]}).json()
    third = api.get("/api/inbox/", {"limit": 2, "cursor": second["next_cursor"]}).json()
    titles = [m["title"] for page in (first, second, third) for m in page["results"]]
    assert titles == ["m0", "m1", "m2", "m3", "m4"] and third["next_cursor"] is None
    unread = api.get("/api/inbox/", {"status": "unread"}).json()["results"]
    assert [m["title"] for m in unread] == ["m0", "m2", "m3", "m4"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"status": "new"}, "status"),
        ({"archived": "maybe"}, "archived"),
        ({"cursor": "bm90IGEgY3Vyc29y"}, "cursor"),
        ({"limit": "0"}, "limit"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_a_bad_query_parameter_is_a_400_naming_it(params, field):
    answer = reader("ada").get("/api/inbox/", params)
    assert answer.status_code == 400
    assert field in answer.json()["errors"], answer.json()


def test_marks_change_the_counts_and_announce_their_events():
    WebhookEndpoint.objects.all().delete()
    endpoint_create(url="http://127.0.0.1:9/hook", events=["*"])
    first, second = message("ada", "a"), message("ada", "b")
    bobs = message("bob", "b's")
    api = reader("ada")
    assert api.get("/api/inbox/counts/").json() == {"unseen": 2, "unread": 2, "total": 2}

    answer = api.post(
        "/api/inbox/mark/", {"ids": [str(first.pk), str(bobs.pk)], "as": "read"}, format="json"
    )
    assert answer.status_code == 200, answer.json()
    assert answer.json() == {
        "marked": [str(first.pk)],
        "counts": {"unseen": 1, "unread": 1, "total": 2},
    }
    bobs.refresh_from_db()
    assert bobs.read_at is None  # another recipient's id changes nothing
    # Marking again changes nothing and announces nothing.
    again = api.post("/api/inbox/mark/", {"ids": [str(first.pk)], "as": "read"}, format="json")
    assert again.json()["marked"] == []
    (event,) = OutboxEvent.objects.filter(type=catalog.MESSAGE_READ)
    assert event.data["message"]["id"] == str(first.pk)
    assert event.data["message"]["channel"] == "inapp"
    assert event.trigger_id == first.trigger_id

    api.post("/api/inbox/mark-all/", {"as": "archived"}, format="json")
    assert api.get("/api/inbox/counts/").json() == {"unseen": 0, "unread": 0, "total": 0}
    assert OutboxEvent.objects.filter(type=catalog.MESSAGE_ARCHIVED).count() == 2
    archived = api.get("/api/inbox/", {"archived": "true"}).json()["results"]
    assert {m["id"] for m in archived} == {str(first.pk), str(second.pk)}
    api.post("/api/inbox/mark/", {"ids": [str(second.pk)], "as": "unarchived"}, format="json")
    assert api.get("/api/inbox/counts/").json() == {"unseen": 1, "unread": 1, "total": 1}


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/inbox/mark/", {"ids": ["x"], "as": "read"}, "ids"),
        ("/api/inbox/mark/", {"ids": [str(uuid.uuid4())], "as": "gone"}, "as"),
        ("/api/inbox/mark/", {"ids": [], "as": "read"}, "ids"),
        ("/api/inbox/mark/", {"ids": [str(uuid.uuid4())], "as": "read", "x": 1}, "x"),
        ("/api/inbox/mark-all/", {"as": "unread"}, "as"),
        ("/api/inbox/mark-all/", {}, "as"),
    ],
)
def test_a_bad_mark_is_a_400_naming_the_field(path, body, field):
    answer = reader("ada").post(path, body, format="json")
    assert answer.status_code == 400
    assert field in answer.json()["errors"], answer.json()


def test_the_token_endpoint_issues_the_token_to_an_api_key():
    _, key = api_key_create(name=unique("k"))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    answer = api.post("/api/recipients/user%2042/inbox-token/", {}, format="json")
    assert answer.status_code == 200, answer.json()
    assert answer.json() == {"token": recipient_token("user 42")}
    assert APIClient().post("/api/recipients/ada/inbox-token/").status_code == 401


@override_settings(NOTIFLOW_INBOX_ALLOWED_ORIGINS=["https://app.example"])
def test_only_an_allowed_origin_gets_cors_headers():
    preflight = APIClient().options(
        "/api/inbox/",
        HTTP_ORIGIN="https://app.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization",
    )
    assert preflight.status_code == 204
    assert preflight["Access-Control-Allow-Origin"] == "https://app.example"
    assert "Authorization" in preflight["Access-Control-Allow-Headers"]
    answer = reader("ada").get("/api/inbox/", HTTP_ORIGIN="https://app.example")
    assert answer["Access-Control-Allow-Origin"] == "https://app.example"
    other = reader("ada").get("/api/inbox/", HTTP_ORIGIN="https://evil.example")
    assert "Access-Control-Allow-Origin" not in other
    elsewhere = APIClient().get("/api/health/", HTTP_ORIGIN="https://app.example")
    assert "Access-Control-Allow-Origin" not in elsewhere


def test_erase_deletes_the_persons_messages_only():
    message("ada"), message("ada"), message("bob")
    assert inbox_erase("ada") == {"inbox_messages": 2}
    assert list(InboxMessage.objects.values_list("recipient", flat=True)) == ["bob"]


def test_erasing_the_recipient_over_the_api_takes_their_messages_along(api_client):
    from recipients.models import Recipient

    Recipient.objects.create(key="erased-ada")
    message("erased-ada"), message("erased-ada"), message("kept-bob")
    response = api_client.delete("/api/recipients/erased-ada/")
    assert response.status_code == 200, response.content
    assert response.json()["erased"]["inbox_messages"] == 2
    assert list(InboxMessage.objects.values_list("recipient", flat=True)) == ["kept-bob"]


def test_each_recipient_has_its_own_rate_limit():
    person = unique("person")  # a bucket of its own in the slot's Redis
    with override_settings(NOTIFLOW_RATE_LIMIT_INBOX="2/m"):
        codes = [reader(person).get("/api/inbox/counts/").status_code for _ in range(3)]
        other = reader(unique("person")).get("/api/inbox/counts/").status_code
    assert codes == [200, 200, 429] and other == 200
