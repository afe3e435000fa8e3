"""A fan-out has a cap and a stop (docs/security/findings.md, "Fan-outs", issue 43 §5): POST
/api/fanouts/<id>/cancel/ stops it (and with `runs` cancels the runs it made), an audience over
NOTIFLOW_FANOUT_MAX_AUDIENCE is a 400 saying how big, a topic grown past it stops there, and a
fan-out's runs count against its key's trigger rate. In-process; tests/triggers/
test_fanout_cancel_e2e.py cancels one the stack's workers are making."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models.functions import Now
from django.test import override_settings
from rest_framework.test import APIClient

from common import throttling
from common.leased_work import work_sweep
from recipients.models import Fanout, Recipient, TopicSubscription
from tests.conftest import unique
from tests.triggers.test_fanout import (
    a_workflow,
    audience,
    published,  # noqa: F401 (the fixture, used by name)
    run_to_the_end,
    runs_of,
)
from triggers.api_keys import api_key_create
from triggers.fanout import FanoutRequest, fanout_chunk, fanout_start
from triggers.fanout_work import FANOUTS
from triggers.models import TriggerInstance

# No chunk task reaches a broker: the tests call the chunks as the task would.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("published")]

TRIGGERS = "/api/triggers/"


def client_for(*, workflows=()) -> APIClient:
    _, key = api_key_create(name=unique("k"), workflows=list(workflows))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def cancel(client: APIClient, fanout_id, body=None):
    return client.post(f"/api/fanouts/{fanout_id}/cancel/", body or {}, format="json")


@override_settings(NOTIFLOW_FANOUT_CHUNK_SIZE=2)
def test_a_cancelled_fanout_makes_no_more_runs_and_keeps_those_made(api_client):
    workflow = a_workflow()
    topic, _ = audience(6)
    fanout, _ = fanout_start(FanoutRequest(workflow.key, "news", topic, {}))
    assert fanout_chunk(fanout_id=fanout.pk, worker_id="w") == 2

    answer = cancel(api_client, fanout.pk)

    assert answer.status_code == 200, answer.content
    assert (answer.json()["status"], answer.json()["runs_cancelled"]) == ("cancelled", 0)
    assert answer.json()["finished_at"] is not None
    assert fanout_chunk(fanout_id=fanout.pk, worker_id="w") is None  # the next task does nothing
    long_ago = Now() - timedelta(hours=1)
    Fanout.objects.filter(pk=fanout.pk).update(nudged_at=long_ago, lease_until=long_ago)
    assert work_sweep(FANOUTS) == []  # nor does the fan-outs' sweep resume it
    assert {run.status for run in runs_of(workflow)} == {"enqueued"}
    assert len(runs_of(workflow)) == 2


@override_settings(NOTIFLOW_FANOUT_CHUNK_SIZE=2)
def test_cancel_with_runs_cancels_the_runs_it_made_and_no_other(api_client):
    workflow = a_workflow()
    topic, keys = audience(5)
    fanout, _ = fanout_start(FanoutRequest(workflow.key, "news", topic, {}))
    fanout_chunk(fanout_id=fanout.pk, worker_id="w")
    fanout_chunk(fanout_id=fanout.pk, worker_id="w")
    other = api_client.post(
        TRIGGERS,
        {"workflow": workflow.key, "idempotency_key": "alone", "recipient": keys[0]},
        format="json",
    )
    assert other.status_code == 201, other.content

    answer = cancel(api_client, fanout.pk, {"runs": True})

    assert answer.status_code == 200, answer.content
    assert answer.json()["runs_cancelled"] == 4
    made = TriggerInstance.objects.filter(workflow=workflow).exclude(idempotency_key="alone")
    assert {run.status for run in made} == {"cancelled"} and made.count() == 4
    assert TriggerInstance.objects.get(idempotency_key="alone").status == "enqueued"


def test_cancel_refuses_a_finished_fanout_an_unknown_one_and_unknown_fields(api_client):
    workflow = a_workflow()
    topic, _ = audience(1)
    fanout, _ = fanout_start(FanoutRequest(workflow.key, "news", topic, {}))
    assert cancel(api_client, fanout.pk, {"runs": True, "rnus": 1}).status_code == 400
    assert cancel(api_client, fanout.pk, {"runs": "yes"}).status_code == 400
    run_to_the_end(fanout.pk)

    finished = cancel(api_client, fanout.pk)
    unknown = cancel(api_client, "00000000-0000-0000-0000-000000000000")

    assert (finished.status_code, finished.json()["status"]) == (409, "done")
    assert unknown.status_code == 404


def test_a_key_limited_to_other_workflows_cannot_cancel_the_fanout():
    workflow = a_workflow()
    topic, _ = audience(3)
    fanout, _ = fanout_start(FanoutRequest(workflow.key, "news", topic, {}))

    outsider = cancel(client_for(workflows=["someone-else"]), fanout.pk, {"runs": True})
    insider = cancel(client_for(workflows=[workflow.key]), fanout.pk)

    assert outsider.status_code == 404
    assert insider.status_code == 200 and insider.json()["status"] == "cancelled"


@override_settings(NOTIFLOW_FANOUT_MAX_AUDIENCE=3)
def test_an_audience_over_the_limit_is_a_400_saying_how_big(api_client):
    workflow = a_workflow()
    topic, keys = audience(5)
    body = {"workflow": workflow.key, "idempotency_key": "big", "topic": topic}

    refused = api_client.post(TRIGGERS, body, format="json")
    fits = api_client.post(TRIGGERS, {**body, "exclude": keys[:2]}, format="json")

    assert refused.status_code == 400
    message = refused.json()["errors"]["topic"][0]
    assert "has 5 subscribers" in message and "3" in message
    assert "NOTIFLOW_FANOUT_MAX_AUDIENCE" in message
    assert fits.status_code == 202, fits.content  # the excluded are not counted
    assert Fanout.objects.filter(idempotency_key="big").count() == 1


@override_settings(NOTIFLOW_FANOUT_MAX_AUDIENCE=4, NOTIFLOW_FANOUT_CHUNK_SIZE=3)
def test_a_topic_grown_past_the_limit_after_the_request_stops_at_it():
    workflow = a_workflow()
    topic, _ = audience(3)
    fanout, _ = fanout_start(FanoutRequest(workflow.key, "news", topic, {}))
    late = [unique("late") for _ in range(3)]
    Recipient.objects.bulk_create([Recipient(key=key) for key in late])
    TopicSubscription.objects.bulk_create(
        [TopicSubscription(topic_id=topic, recipient_id=key) for key in late]
    )

    run_to_the_end(fanout.pk)

    done = Fanout.objects.get(pk=fanout.pk)
    assert (done.status, done.created) == ("done", 4)
    assert "NOTIFLOW_FANOUT_MAX_AUDIENCE (4 runs)" in done.last_error
    assert len(runs_of(workflow)) == 4


@pytest.fixture
def redis_answers():
    throttling.FAIL_OPEN.until = 0.0
    yield
    throttling.FAIL_OPEN.until = 0.0


@override_settings(NOTIFLOW_RATE_LIMIT_TRIGGER="10/m")
def test_a_fanouts_runs_count_against_its_keys_trigger_rate(redis_answers):
    workflow = a_workflow()
    topic, _ = audience(20)
    client = client_for()
    body = {"workflow": workflow.key, "idempotency_key": unique("n"), "topic": topic}

    first = client.post(TRIGGERS, body, format="json")
    second = client.post(TRIGGERS, {**body, "idempotency_key": unique("n")}, format="json")
    plain = client.get(TRIGGERS)

    assert first.status_code == 202, first.content
    # 1 + 20 of a burst of 10 at one a 6 s: the key owes 66 s before one more request passes.
    assert second.status_code == 429 and int(second["Retry-After"]) > 60
    assert plain.status_code == 429
    assert Fanout.objects.filter(workflow_key=workflow.key).count() == 1
    assert client_for().get(TRIGGERS).status_code == 200  # another key's bucket
