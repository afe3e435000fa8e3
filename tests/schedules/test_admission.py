"""A topic schedule's occurrence is capped and charged as a fan-out's request is
(schedules/admission.py, docs/guide/schedules.md "Topics: capped and charged like fan-outs"):
over NOTIFLOW_FANOUT_MAX_AUDIENCE it is refused with the fan-out's own words, its runs are
charged to the trigger rate of the key that stored it, it waits for that rate as a client after
a 429 would, and is refused when that would take it past catch_up; each shown on its record, in
the API and in the admin. Driven at instants of the test's choosing (tests/schedules/support.py);
Redis's clock paces the rate."""

from __future__ import annotations

import time

import pytest
from django.test import override_settings
from django.urls import reverse
from rest_framework.test import APIClient

from common import throttling
from recipients.models import TopicSubscription
from schedules.models import Schedule, ScheduleOccurrence
from tests.conftest import unique
from tests.schedules.support import a_workflow, at, fire_at, people, place, step_at, topic_of
from triggers.api_keys import api_key_create
from triggers.models import ApiKey, TriggerInstance

pytestmark = pytest.mark.django_db

DAILY_9 = "FREQ=DAILY;BYHOUR=9;BYMINUTE=0"
NINE = at("2026-12-07T09:00")  # 9:00 in UTC, the schedules' zone


@pytest.fixture(autouse=True)
def redis_answers():
    throttling.FAIL_OPEN.until = 0.0
    yield
    throttling.FAIL_OPEN.until = 0.0


def a_key() -> tuple[ApiKey, APIClient]:
    api_key, secret = api_key_create(name=unique("k"))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return api_key, client


def stored_by(client: APIClient, workflow, **audience) -> str:
    """A daily 9:00 UTC schedule PUT by `client`, placed as if stored the day before."""
    schedule_id = unique("s")
    answer = client.put(
        f"/api/schedules/{schedule_id}/",
        {
            "workflow": workflow.key,
            "repeat": DAILY_9,
            "timezone": "UTC",
            "starts_at": "2026-01-01T00:00:00",
            **audience,
        },
        format="json",
    )
    assert answer.status_code == 201, answer.content
    place(schedule_id, at("2026-12-06T12:00"))
    return schedule_id


def records(schedule_id: str) -> list[tuple[str, int, int]]:
    return list(
        ScheduleOccurrence.objects.filter(schedule_id=schedule_id)
        .order_by("occurs_at")
        .values_list("status", "runs", "charged")
    )


def runs_of(workflow) -> int:
    return TriggerInstance.objects.filter(workflow=workflow).count()


@override_settings(NOTIFLOW_FANOUT_MAX_AUDIENCE=3)
def test_an_occurrence_over_the_fanout_cap_is_refused_in_the_fanouts_words(api_client):
    workflow = a_workflow()
    topic, keys = topic_of(5)
    schedule_id = stored_by(api_client, workflow, topic=topic)

    assert fire_at(schedule_id, NINE) == []
    fanout = api_client.post(
        "/api/triggers/",
        {"workflow": workflow.key, "idempotency_key": unique("f"), "topic": topic},
        format="json",
    )
    TopicSubscription.objects.filter(topic_id=topic, recipient_id__in=keys[:2]).delete()
    assert fire_at(schedule_id, at("2026-12-08T09:00")) == [3]  # the next day: 3 fit

    assert records(schedule_id) == [("refused", 0, 0), ("fired", 3, 0)]
    refused = ScheduleOccurrence.objects.get(schedule_id=schedule_id, status="refused")
    assert "has 5 subscribers" in refused.reason
    assert "NOTIFLOW_FANOUT_MAX_AUDIENCE" in refused.reason
    # One rule: the fan-out's 400 says the same, and adds that it stored nothing.
    assert fanout.status_code == 400
    assert fanout.json()["errors"]["topic"][0] == f"{refused.reason}; nothing was stored"
    assert runs_of(workflow) == 3
    assert "refused" in Schedule.objects.get(pk=schedule_id).last_error


@override_settings(NOTIFLOW_RATE_LIMIT_TRIGGER="10/m")
def test_an_occurrences_runs_are_charged_to_the_key_that_stored_it():
    workflow = a_workflow()
    topic, _ = topic_of(20)
    _, client = a_key()
    _, other = a_key()
    schedule_id = stored_by(client, workflow, topic=topic)

    assert fire_at(schedule_id, NINE) == [20]

    assert records(schedule_id) == [("fired", 20, 20)]
    # 1 PUT + 20 runs against a burst of 10 at one a 6 s: the key owes more than a minute.
    held = client.get("/api/triggers/")
    assert held.status_code == 429 and int(held["Retry-After"]) > 60
    shown = other.get(f"/api/schedules/{schedule_id}/")  # another key's bucket
    assert shown.status_code == 200
    latest = shown.json()["latest_occurrences"]
    assert [(r["status"], r["runs"], r["charged"]) for r in latest] == [("fired", 20, 20)]


@override_settings(NOTIFLOW_RATE_LIMIT_TRIGGER="10/m")
def test_a_list_of_recipients_is_not_charged():
    workflow = a_workflow()
    _, client = a_key()
    schedule_id = stored_by(client, workflow, recipients=people({"a": "", "b": "", "c": ""}))

    assert fire_at(schedule_id, NINE) == [3]

    assert records(schedule_id) == [("fired", 3, 0)]
    assert client.get("/api/triggers/").status_code == 200


@override_settings(NOTIFLOW_RATE_LIMIT_TRIGGER="10/s")
def test_an_occurrence_waits_for_the_keys_rate_then_fires_charged():
    workflow = a_workflow()
    topic, _ = topic_of(20)
    api_key, client = a_key()
    schedule_id = stored_by(client, workflow, topic=topic)
    # The key's bucket in debt, as a fan-out of 30 just charged it: about 3 s to catch up.
    assert throttling.trigger_rate_take(key_hash=api_key.key_hash, runs=30) == 0

    waited = step_at(schedule_id, NINE)

    assert waited is not None and waited.created == 0 and 1 < (waited.wait or 0) <= 4
    assert runs_of(workflow) == 0 and records(schedule_id) == []
    assert "waiting" in Schedule.objects.get(pk=schedule_id).last_error
    deadline = time.monotonic() + 15
    created: list[int] = []
    while not created and time.monotonic() < deadline:  # Redis's clock: the bucket catches up
        created = fire_at(schedule_id, NINE)
        time.sleep(0.2)
    assert created == [20]
    assert records(schedule_id) == [("fired", 20, 20)]


@override_settings(NOTIFLOW_RATE_LIMIT_TRIGGER="10/s")
def test_an_occurrence_the_rate_would_take_past_catch_up_is_refused(admin_client):
    workflow = a_workflow()
    topic, _ = topic_of(20)
    api_key, client = a_key()
    schedule_id = stored_by(client, workflow, topic=topic, catch_up="1s")
    assert throttling.trigger_rate_take(key_hash=api_key.key_hash, runs=30) == 0

    assert fire_at(schedule_id, NINE) == []

    assert records(schedule_id) == [("refused", 0, 0)]
    reason = ScheduleOccurrence.objects.get(schedule_id=schedule_id).reason
    assert "later than catch_up" in reason
    assert Schedule.objects.get(pk=schedule_id).next_local == "2026-12-08T09:00:00"
    page = admin_client.get(reverse("admin:schedules_schedule_change", args=[schedule_id]))
    text = page.content.decode()
    assert "later than catch_up" in text and f"API key {api_key.name}" in text


@override_settings(NOTIFLOW_RATE_LIMIT_TRIGGER="10/m")
def test_an_occurrence_missed_past_catch_up_is_skipped_and_not_charged():
    workflow = a_workflow()
    topic, _ = topic_of(20)
    _, client = a_key()
    schedule_id = stored_by(client, workflow, topic=topic)

    assert fire_at(schedule_id, at("2026-12-07T11:00")) == []  # 2 h late, catch_up 1 h

    assert records(schedule_id) == [("skipped", 0, 0)]
    assert client.get("/api/triggers/").status_code == 200  # nothing owed
