"""PUT, GET, DELETE /api/schedules/<id>/ and the list (schedules/api.py): every bad input a 400
naming its path, the next occurrences shown, and a key limited to workflows kept to its own."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from schedules.models import Schedule
from tests.conftest import unique
from tests.schedules.support import a_workflow, people, topic_of
from triggers.api_keys import api_key_create

pytestmark = pytest.mark.django_db

WEEKLY = "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0"


def url(schedule_id: str) -> str:
    return f"/api/schedules/{schedule_id}/"


@pytest.fixture
def workflow():
    return a_workflow()


def body(flow, **fields):
    return {"workflow": flow.key, "recipients": ["user-1"], "repeat": WEEKLY, **fields}


def test_put_creates_then_replaces_and_get_shows_the_next_five_occurrences(api_client, workflow):
    schedule_id = unique("weekly")
    fields = body(workflow, timezone="Europe/Paris", starts_at="2026-01-01T00:00:00")

    created = api_client.put(url(schedule_id), fields, format="json")
    replaced = api_client.put(url(schedule_id), {**fields, "payload": {"v": 2}}, format="json")

    assert (created.status_code, replaced.status_code) == (201, 200), created.content
    shown = api_client.get(url(schedule_id)).json()
    assert shown["payload"] == {"v": 2} and shown["workflow"] == workflow.key
    upcoming = shown["next_occurrences"]
    assert len(upcoming["local"]) == 5 and all(t.endswith("T09:00:00") for t in upcoming["local"])
    # 9:00 in Paris is 08:00Z in winter (or 07:00Z in summer).
    assert all(t[11:] in ("08:00:00Z", "07:00:00Z") for t in upcoming["utc"])
    assert upcoming["recipients"] is None  # a fixed zone: the instants are everyone's


def test_get_shows_the_first_recipients_own_occurrences_for_recipient_zones(api_client, workflow):
    paris, new_york = people({"paris": "Europe/Paris", "ny": "America/New_York"})
    schedule_id = unique("mine")
    api_client.put(url(schedule_id), body(workflow, recipients=[paris, new_york]), format="json")

    upcoming = api_client.get(url(schedule_id)).json()["next_occurrences"]

    assert upcoming["utc"] is None
    assert [(p["recipient"], p["timezone"]) for p in upcoming["recipients"]] == [
        (paris, "Europe/Paris"),
        (new_york, "America/New_York"),
    ]
    assert all(t[11:19] == "09:00:00" for p in upcoming["recipients"] for t in p["local"])
    assert {t[11:] for t in upcoming["recipients"][1]["utc"]} <= {"14:00:00Z", "13:00:00Z"}


@pytest.mark.parametrize(
    ("fields", "path", "message"),
    [
        ({"repeat": "FREQ=FORTNIGHTLY"}, "repeat", "not a valid RFC 5545 rule"),
        ({"repeat": "FREQ=SECONDLY"}, "repeat", "SECONDLY"),
        ({"timezone": "Mars/Olympus"}, "timezone", "not an IANA time zone"),
        ({"workflow": "no-such-flow"}, "workflow", "does not exist"),
        ({"topic": "news"}, "recipients", "either recipients"),
        ({"recipients": None}, "recipients", "may not be null"),
        ({"recipients": ["ok", "a/b"]}, "recipients[1]", "may not contain '/'"),
        ({"starts_at": "next monday"}, "starts_at", "not an ISO 8601"),
        ({"starts_at": "2026-12-07T09:00:00+01:00"}, "starts_at", "without an offset"),
        (
            {"starts_at": "2026-12-07T09:00:00", "ends_at": "2026-12-01T00:00:00"},
            "ends_at",
            "before starts_at",
        ),
        ({"catch_up": "soon"}, "catch_up", "not a duration"),
        ({"catch_up": "30d"}, "catch_up", "at most 7 days"),
        ({"payload": [1]}, "payload", "JSON object"),
        ({"active": "yes"}, "active", "valid boolean"),
        ({"repeats": WEEKLY}, "repeats", "did you mean 'repeat'"),
    ],
)
def test_every_bad_input_is_a_400_naming_its_path(api_client, workflow, fields, path, message):
    response = api_client.put(url(unique("bad")), body(workflow, **fields), format="json")

    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert path in errors, errors
    assert message in " ".join(map(str, errors[path])), errors
    assert not Schedule.objects.exists()


def test_an_unknown_topic_and_a_bad_id_are_400s_naming_them(api_client, workflow):
    fields = {"workflow": workflow.key, "topic": "no-such-topic", "repeat": WEEKLY}
    assert "topic" in api_client.put(url("t1"), fields, format="json").json()["errors"]
    assert "id" in api_client.put(url("-bad"), body(workflow), format="json").json()["errors"]


def test_list_filters_by_workflow_and_recipient_and_delete_removes(api_client, workflow):
    other = a_workflow()
    topic, _ = topic_of(2)
    api_client.put(url("a-1"), body(workflow, recipients=["ada", "bob"]), format="json")
    api_client.put(url("a-2"), body(other, recipients=["bob"]), format="json")
    api_client.put(
        url("a-3"), {"workflow": workflow.key, "topic": topic, "repeat": WEEKLY}, format="json"
    )

    def ids(query: str) -> list[str]:
        return [s["id"] for s in api_client.get(f"/api/schedules/{query}").json()["results"]]

    assert ids("") == ["a-1", "a-2", "a-3"]
    assert ids(f"?workflow={workflow.key}") == ["a-1", "a-3"]
    assert ids("?recipient=bob") == ["a-1", "a-2"]
    assert api_client.get("/api/schedules/?recipients=bob").status_code == 400
    assert api_client.delete(url("a-1")).status_code == 204
    assert api_client.delete(url("a-1")).status_code == 404
    assert api_client.get(url("a-1")).status_code == 404


def test_a_key_limited_to_workflows_reaches_its_own_schedules_only(api_client, workflow):
    other = a_workflow()
    (person,) = people({"p": "Europe/Paris"})
    api_client.put(url("theirs"), body(other), format="json")
    _, key = api_key_create(name=unique("limited"), workflows=[str(workflow.key)])
    limited = APIClient()
    limited.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")

    assert (
        limited.put(url("mine"), body(workflow, recipients=[person]), format="json").status_code
        == 201
    )
    assert limited.put(url("new"), body(other), format="json").status_code == 403
    assert limited.put(url("theirs"), body(workflow), format="json").status_code == 404
    assert limited.get(url("theirs")).status_code == 404
    assert limited.delete(url("theirs")).status_code == 404
    assert [s["id"] for s in limited.get("/api/schedules/").json()["results"]] == ["mine"]
    # A person's zone is their profile's: not shown to such a key.
    assert limited.get(url("mine")).json()["next_occurrences"]["recipients"] is None
    assert Schedule.objects.get(pk="theirs").workflow_key == other.key
