"""A person's push addresses one at a time (docs/design/recipients.md, "Recipients"): POST adds a device
token or a browser subscription to `channels.fcm` / `channels.webpush`, DELETE removes it, each
in one statement, so that two devices registering at once both stay; the address is checked by
the rule the worker sends by."""

from __future__ import annotations

import json
import threading
import time

import pytest
from rest_framework.test import APIClient

from recipients.models import Recipient
from recipients.sql import CHANNEL_ADDRESS_ADD_SQL
from tests.conftest import unique
from tests.recipients.test_upsert_concurrency import connect
from triggers.api_keys import api_key_create


def subscription(endpoint: str, auth: str = "auth") -> dict:
    return {"endpoint": endpoint, "keys": {"p256dh": "BNc", "auth": auth}}


def url(key: str, channel: str) -> str:
    return f"/api/recipients/{key}/channels/{channel}/"


@pytest.fixture
def trigger_api(db) -> APIClient:
    _, key = api_key_create(name=unique("k"))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return api


def person(**channels) -> str:
    key = unique("person")
    Recipient.objects.create(key=key, channels={"slack": {"user": "U1"}, **channels})
    return key


def stored(key: str) -> dict:
    return Recipient.objects.get(key=key).channels


@pytest.mark.django_db
def test_a_token_is_added_once_and_the_rest_of_channels_stays(trigger_api):
    key = person(fcm=["old"])

    added = trigger_api.post(url(key, "fcm"), {"address": "new"}, format="json")
    again = trigger_api.post(url(key, "fcm"), {"address": "new"}, format="json")

    assert added.status_code == 201, added.content
    assert added.json() == {"id": key, "channel": "fcm", "address": "new"}
    assert again.status_code == 200
    assert stored(key) == {"slack": {"user": "U1"}, "fcm": ["old", "new"]}


@pytest.mark.django_db
def test_a_subscription_with_a_known_endpoint_replaces_the_old_one(trigger_api):
    first, other = subscription("https://push.example/a"), subscription("https://push.example/b")
    key = person(webpush=[first, other])
    renewed = subscription("https://push.example/a", auth="renewed")

    response = trigger_api.post(url(key, "webpush"), {"address": renewed}, format="json")

    assert response.status_code == 200
    assert stored(key)["webpush"] == [other, renewed]


@pytest.mark.django_db
def test_a_channel_that_is_not_a_list_yet_becomes_one(trigger_api):
    key = person(fcm="garbage")

    assert trigger_api.post(url(key, "fcm"), {"address": "t"}, format="json").status_code == 201
    assert stored(key)["fcm"] == ["t"]


@pytest.mark.django_db
def test_delete_removes_the_address_and_is_204_when_it_was_not_there(trigger_api):
    kept = subscription("https://push.example/kept")
    key = person(webpush=[subscription("https://push.example/gone"), kept])
    gone = subscription("https://push.example/gone", auth="other keys")

    removed = trigger_api.delete(url(key, "webpush"), {"address": gone}, format="json")
    again = trigger_api.delete(url(key, "webpush"), {"address": gone}, format="json")

    assert (removed.status_code, again.status_code) == (204, 204)
    assert stored(key)["webpush"] == [kept]


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["post", "delete"])
def test_an_unknown_person_is_a_404(trigger_api, method):
    response = getattr(trigger_api, method)(url("nobody", "fcm"), {"address": "t"}, format="json")

    assert response.status_code == 404
    assert response.json() == {"detail": "no recipient 'nobody'"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("channel", "body", "field"),
    [
        ("push", {"address": "t"}, "channel"),  # the node type's name, not the channels key
        ("slack", {"address": "t"}, "channel"),  # one address, not a list: PATCH it
        ("fcm", {"address": ""}, "address"),
        ("fcm", {"address": {"token": "t"}}, "address"),
        ("webpush", {"address": "https://push.example/a"}, "address"),
        ("webpush", {"address": subscription("http://push.example/a")}, "address"),
        ("webpush", {"address": {"endpoint": "https://push.example/a"}}, "address"),
        ("fcm", {"adress": "t"}, "adress"),
        ("fcm", {}, "address"),
    ],
)
@pytest.mark.parametrize("method", ["post", "delete"])
def test_a_bad_channel_or_address_is_a_400_naming_it(trigger_api, method, channel, body, field):
    key = person()
    before = stored(key)

    response = getattr(trigger_api, method)(url(key, channel), body, format="json")

    assert response.status_code == 400
    assert field in response.json()["errors"], response.json()
    assert stored(key) == before


def add(conn, key: str, address: str) -> None:
    params = {"rcp_key": key, "rcp_channel": "fcm", "rcp_address": json.dumps(address)}
    conn.execute(CHANNEL_ADDRESS_ADD_SQL, params)


def test_two_devices_registering_at_once_both_stay(django_db_setup, django_db_blocker):
    key = unique("race")
    with django_db_blocker.unblock():
        Recipient.objects.create(key=key, channels={"fcm": ["old"]})
        first, second = connect(), connect()
        try:
            add(first, key, "phone")  # holds the row's lock
            done = threading.Event()

            def later() -> None:
                add(second, key, "tablet")
                second.commit()
                done.set()

            thread = threading.Thread(target=later)
            thread.start()
            deadline = time.monotonic() + 10
            with connect() as watcher:
                while time.monotonic() < deadline:  # the second waits on the lock
                    (waiting,) = watcher.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE pid = %s "
                        "AND wait_event_type = 'Lock'",
                        [second.info.backend_pid],
                    ).fetchone()
                    if waiting:
                        break
                    time.sleep(0.02)
            assert waiting, "the second add never waited for the first"
            assert not done.is_set()
            first.commit()
            thread.join(timeout=10)
            assert done.is_set()
            assert Recipient.objects.get(key=key).channels == {"fcm": ["old", "phone", "tablet"]}
        finally:
            first.close()
            second.close()
            Recipient.objects.filter(key=key).delete()
