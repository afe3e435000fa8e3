"""The admin's JSON fields refuse, as a form error, what the API's parser and the workflow forms
refuse (common/http.py's json_loads_storable: nesting past MAX_JSON_DEPTH, NUL), instead of a 500
from a RecursionError or the database's DataError (docs/security/findings.md, "Admin JSON fields")."""

from __future__ import annotations

import pytest

from recipients.models import Recipient
from tests.conftest import unique
from waits.models import ReceivedEvent

pytestmark = pytest.mark.django_db

UNSTORABLE = {
    "nested 5000 deep": ("[" * 5000, b"Not valid JSON"),
    "NUL in a string": ('{"a": "\\u0000"}', b"NUL"),
    "NUL in a key": ('{"\\u0000": 1}', b"NUL"),
}


@pytest.mark.parametrize("text,why", UNSTORABLE.values(), ids=UNSTORABLE.keys())
def test_posting_an_event_in_the_admin_refuses_unstorable_data(admin_client, text, why):
    event_id = unique("ev")
    answer = admin_client.post(
        "/admin/waits/receivedevent/add/", {"name": "paid", "event_id": event_id, "data": text}
    )
    assert answer.status_code == 200 and why in answer.content
    assert not ReceivedEvent.objects.filter(event_id=event_id).exists()


@pytest.mark.parametrize("field", ["properties", "channels"])
@pytest.mark.parametrize("text,why", UNSTORABLE.values(), ids=UNSTORABLE.keys())
def test_adding_a_recipient_in_the_admin_refuses_unstorable_json(admin_client, field, text, why):
    key = unique("r")
    form = {"key": key, "properties": "{}", "channels": "{}", field: text}
    answer = admin_client.post("/admin/recipients/recipient/add/", form)
    assert answer.status_code == 200 and why in answer.content
    assert not Recipient.objects.filter(key=key).exists()


def test_storable_json_is_still_saved(admin_client):
    key = unique("r")
    form = {"key": key, "properties": '{"plan": "pro"}', "channels": "{}"}
    answer = admin_client.post("/admin/recipients/recipient/add/", form)
    assert answer.status_code == 302, answer.content[:2000]
    assert Recipient.objects.get(key=key).properties == {"plan": "pro"}
