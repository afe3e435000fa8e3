"""A trigger for a topic (docs/design/recipients.md, "Topics and fan-out"): POST /api/triggers/ with
`topic` stores a fan-out and answers 202; the workers create one run per subscriber (but the
excluded) a chunk at a time, each run keyed by the request's key and the recipient, so a chunk
done twice, a repeated request or a resumed fan-out creates no run twice. The chunks are called
here as the worker's task calls them; tests/triggers/test_fanout_e2e.py runs them in workers."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db.models.functions import Now
from django.test import override_settings

from common import broker, leased_work
from common.leased_work import work_sweep
from recipients.models import Fanout, Recipient, Topic, TopicSubscription
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node
from triggers import fanout as fanout_module
from triggers import fanout_work
from triggers.fanout import FanoutRequest, fanout_chunk, fanout_run_key, fanout_start
from triggers.fanout_work import FANOUTS, fanout_claim
from triggers.models import TriggerInstance
from triggers.services import MAX_IDEMPOTENCY_KEY_LENGTH, TriggerRejected

pytestmark = pytest.mark.django_db

TRIGGERS = "/api/triggers/"


def audience(size: int) -> tuple[str, list[str]]:
    """A topic with `size` subscribers; its key and theirs, in subscription order."""
    topic = Topic.objects.create(key=unique("project"))
    keys = [unique("user") for _ in range(size)]
    Recipient.objects.bulk_create([Recipient(key=key) for key in keys])
    TopicSubscription.objects.bulk_create(
        [TopicSubscription(topic=topic, recipient_id=key) for key in keys]
    )
    return topic.key, keys


def a_workflow(**fields):
    return WorkflowFactory(definition=chain(delay_node("wait", duration="1h")), **fields)


def run_to_the_end(fanout_id) -> list[int | None]:
    """Each chunk as the worker's task chain would run it; what each returned."""
    created: list[int | None] = []
    while True:
        fanout = Fanout.objects.get(pk=fanout_id)
        if fanout.status != "running":
            return created
        created.append(fanout_chunk(fanout_id=fanout.pk, worker_id="w"))


def runs_of(workflow) -> list[TriggerInstance]:
    return list(TriggerInstance.objects.filter(workflow=workflow).order_by("recipient"))


@pytest.fixture
def published(monkeypatch) -> list[tuple[str, list]]:
    """The chunk tasks the fan-out publishes: (task name, calls)."""
    calls: list[tuple[str, list]] = []
    publish = broker.tasks_publish  # the runs' nudges still go out

    def chunks_kept(name: str, c: list, **options: Any) -> None:
        if name == fanout_work.FANOUT_CHUNK_TASK:
            calls.append((name, list(c)))
        else:
            publish(name, c, **options)

    monkeypatch.setattr(broker, "tasks_publish", chunks_kept)
    return calls


@override_settings(NOTIFLOW_FANOUT_CHUNK_SIZE=2)
def test_a_topic_trigger_answers_202_and_the_chunks_make_one_run_per_subscriber(
    api_client, published, django_capture_on_commit_callbacks
):
    workflow = a_workflow()
    topic, keys = audience(5)
    body = {
        "workflow": workflow.key,
        "idempotency_key": "release-7",
        "topic": topic,
        "exclude": [keys[1]],
        "payload": {"version": 7},
    }

    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(TRIGGERS, body, format="json")

    assert response.status_code == 202, response.content
    fanout_id = response.json()["fanout_id"]
    assert response.json()["status"] == "running" and response.json()["created"] == 0
    ((task, (call,)),) = published
    assert (task, call.args) == ("workers.fanout_chunk", [fanout_id])
    assert runs_of(workflow) == []  # the workers make the runs

    # 4 subscribers left: 2 and 2; a full chunk may not be the last, and an empty one ends it.
    assert run_to_the_end(fanout_id) == [2, 2, 0]
    shown = api_client.get(f"/api/fanouts/{fanout_id}/").json()
    assert (shown["status"], shown["created"], shown["topic"]) == ("done", 4, topic)
    runs = runs_of(workflow)
    assert sorted(run.recipient for run in runs) == sorted(keys[:1] + keys[2:])
    assert {run.idempotency_key for run in runs} == {
        fanout_run_key("release-7", key) for key in keys if key != keys[1]
    }
    assert all(run.payload == {"version": 7} for run in runs)


@override_settings(NOTIFLOW_FANOUT_CHUNK_SIZE=3)
def test_a_chunk_done_again_or_a_task_while_another_holds_the_lease_creates_no_run_twice(
    published,
):
    workflow = a_workflow()
    topic, keys = audience(7)
    fanout, _ = fanout_start(FanoutRequest(workflow.key, "k", topic, {}))

    assert fanout_chunk(fanout_id=fanout.pk, worker_id="w") == 3
    # A copy of the chain's task while another worker holds the fan-out: skipped, not waited for.
    assert fanout_claim(fanout.pk, token="other/1")
    assert fanout_chunk(fanout_id=fanout.pk, worker_id="w") is None
    # That worker died: its lease expired, and the fan-out is taken again.
    Fanout.objects.filter(pk=fanout.pk).update(lease_until=Now() - timedelta(seconds=1))
    # As if the cursor had been lost after the runs were made (a resume from an older cursor):
    Fanout.objects.filter(pk=fanout.pk).update(cursor=0)
    assert run_to_the_end(fanout.pk) == [0, 3, 1]

    assert sorted(run.recipient for run in runs_of(workflow)) == sorted(keys)
    assert Fanout.objects.get(pk=fanout.pk).created == 7


def test_a_repeated_request_is_the_same_fanout_and_other_parameters_are_a_422(api_client):
    workflow = a_workflow()
    topic, keys = audience(2)
    body = {"workflow": workflow.key, "idempotency_key": "k1", "topic": topic, "exclude": keys}

    first = api_client.post(TRIGGERS, body, format="json")
    again = api_client.post(TRIGGERS, {**body, "exclude": keys[::-1]}, format="json")
    other = api_client.post(TRIGGERS, {**body, "exclude": keys[:1]}, format="json")

    assert (first.status_code, again.status_code) == (202, 200)
    assert again.json()["fanout_id"] == first.json()["fanout_id"]
    assert other.status_code == 422
    assert other.json()["existing_fanout_id"] == first.json()["fanout_id"]
    assert Fanout.objects.filter(workflow_key=workflow.key).count() == 1


@pytest.mark.parametrize(
    ("change", "field", "code"),
    [
        ({"topic": "no-such-topic"}, "topic", 400),
        ({"workflow": "no-such-workflow"}, "workflow", 400),
        ({"topic": None, "exclude": ["a"]}, "exclude", 400),
        ({"exclude": ["x"] * 1001}, "exclude", 400),
        ({"payload": [1]}, "payload", 400),
        ({"priority": 12}, "priority", 400),
        ({"recipient": "user-1"}, "topic", 400),  # a recipient or a topic, not both
    ],
)
def test_bad_topic_requests_are_refused_naming_the_field(api_client, change, field, code):
    workflow = a_workflow()
    topic, _ = audience(1)
    body = {"workflow": workflow.key, "idempotency_key": unique("k"), "topic": topic, **change}
    body = {name: value for name, value in body.items() if value is not None}
    if "recipient" in change:  # the field is the recipients' change's; until then, unknown
        pytest.importorskip("recipients.api")

    response = api_client.post(TRIGGERS, body, format="json")

    assert response.status_code == code, response.content
    assert field in response.json()["errors"]
    assert not Fanout.objects.filter(workflow_key=workflow.key).exists()


def test_an_unknown_workflow_of_a_topic_trigger_names_the_closest_active_one(api_client):
    workflow = a_workflow()
    topic, _ = audience(1)
    body = {"workflow": workflow.key[:-1], "idempotency_key": unique("k"), "topic": topic}

    response = api_client.post(TRIGGERS, body, format="json")

    assert response.status_code == 400
    assert response.json()[
        "detail"
    ].startswith(  # the closest first
        f"workflow {workflow.key[:-1]!r} does not exist; did you mean {workflow.key!r}"
    )


def test_an_inactive_workflow_is_a_409_and_a_topic_is_not_a_bulk_item(api_client):
    inactive = a_workflow(active=False)
    topic, _ = audience(1)
    body = {"workflow": inactive.key, "idempotency_key": "k", "topic": topic}
    assert api_client.post(TRIGGERS, body, format="json").status_code == 409
    bulk = api_client.post(
        "/api/triggers/bulk/", {"triggers": [{**body, "workflow": a_workflow().key}]}, format="json"
    )
    (item,) = bulk.json()["results"]
    assert item["status"] == 400 and "topic" in item["errors"]


def test_chunk_tasks_go_to_the_workflow_queue_ahead_of_the_runs_they_make(
    monkeypatch, django_capture_on_commit_callbacks
):
    """Chunk tasks at the top of the scale whatever the fan-out's priority; the runs at the
    fan-out's (the request's, else the workflow's). tests/triggers/test_fanout_priority_e2e.py
    shows it in workers."""
    sent: list[tuple[str, str, int]] = []
    monkeypatch.setattr(
        broker,
        "tasks_publish",
        lambda name, calls, **_: sent.extend((name, c.queue, c.priority) for c in calls),
    )
    workflow = a_workflow(key=f"billing.{unique('wf')}", priority=3)
    topic, _ = audience(2)
    with (
        override_settings(NOTIFLOW_FANOUT_CHUNK_SIZE=1),
        django_capture_on_commit_callbacks(execute=True),
    ):
        urgent, _ = fanout_start(FanoutRequest(workflow.key, "a", topic, {}, priority=8))
        plain, _ = fanout_start(FanoutRequest(workflow.key, "b", topic, {}))
        fanout_chunk(fanout_id=plain.pk, worker_id="w")  # its run's nudge, then the next chunk

    # Redis pops the lowest step first: broker priority 9 - Notiflow's (common.broker).
    assert sent == [
        ("workers.fanout_chunk", "billing", 9 - 9),
        ("workers.fanout_chunk", "billing", 9 - 9),
        ("workers.execute_node", "billing", 9 - 3),
        ("workers.fanout_chunk", "billing", 9 - 9),
    ]
    fanout_chunk(fanout_id=urgent.pk, worker_id="w")
    runs = TriggerInstance.objects.filter(workflow=workflow, idempotency_key__contains=":a:")
    assert [run.priority for run in runs] == [8, 8]


@pytest.fixture
def line(monkeypatch):
    """The workflows' queues' length as the sweeps see it."""
    waiting = {"length": 0}
    monkeypatch.setattr(leased_work, "nudges_waiting", lambda queues: waiting["length"])
    return waiting


def test_the_fanouts_sweep_sends_a_lost_chunk_task_again_and_that_of_a_dead_worker(
    published, line, django_capture_on_commit_callbacks
):
    """Leased work (common/leased_work.py): a running fan-out whose chunk task was published
    long ago and never taken gets it again, once per NOTIFLOW_RENUDGE_AFTER_SECONDS and only
    while the line is short; one whose worker died gets it at once whatever the line; one
    under a live lease, or finished, never."""
    workflow = a_workflow(key=f"billing.{unique('wf')}", priority=3)
    topic, _ = audience(3)
    lost, _ = fanout_start(FanoutRequest(workflow.key, "lost", topic, {}, priority=7))
    dead, _ = fanout_start(FanoutRequest(workflow.key, "dead", topic, {}))
    held, _ = fanout_start(FanoutRequest(workflow.key, "held", topic, {}))
    done, _ = fanout_start(FanoutRequest(workflow.key, "done", topic, {}))
    long_ago = Now() - timedelta(minutes=5)
    Fanout.objects.filter(pk=done.pk).update(status="done")
    Fanout.objects.update(nudged_at=long_ago, available_at=long_ago)
    assert fanout_claim(dead.pk, token="dead/1") and fanout_claim(held.pk, token="held/1")
    Fanout.objects.filter(pk=dead.pk).update(lease_until=long_ago)

    def swept() -> list[tuple[str, list, str, int]]:
        published.clear()
        with django_capture_on_commit_callbacks(execute=True):
            work_sweep(FANOUTS)
        return [(name, c.args, c.queue, c.priority) for name, calls in published for c in calls]

    line["length"] = 10_000  # a long line: the lost task is most likely in it
    assert swept() == [("workers.fanout_chunk", [str(dead.pk)], "billing", 0)]
    line["length"] = 0
    assert swept() == [("workers.fanout_chunk", [str(lost.pk)], "billing", 0)]
    assert swept() == []  # both nudged just now

    assert fanout_chunk(fanout_id=dead.pk, worker_id="w") == 3  # a new worker takes it
    assert fanout_chunk(fanout_id=held.pk, worker_id="w") is None


def test_a_fanout_whose_workflow_was_deactivated_fails_and_keeps_its_runs():
    workflow = a_workflow()
    topic, _ = audience(2)
    fanout, _ = fanout_start(FanoutRequest(workflow.key, "k", topic, {}))
    workflow.active = False
    workflow.save()

    assert fanout_chunk(fanout_id=fanout.pk, worker_id="w") == 0
    failed = Fanout.objects.get(pk=fanout.pk)
    assert failed.status == "failed" and "not active" in failed.last_error


def test_a_run_key_is_unambiguous_and_never_longer_than_the_limit():
    assert fanout_run_key("a:b", "c") != fanout_run_key("a", "b:c")
    long = fanout_run_key("k" * 255, "user-1")
    assert len(long) <= MAX_IDEMPOTENCY_KEY_LENGTH and long.startswith("fanout:sha256:")
    assert long == fanout_run_key("k" * 255, "user-1") != fanout_run_key("k" * 255, "user-2")


def test_a_new_fanout_needs_a_live_worker_on_its_queue():
    workflow = a_workflow()
    topic, _ = audience(1)
    with (
        override_settings(NOTIFLOW_TRIGGER_REQUIRES_WORKER=True),
        pytest.raises(TriggerRejected) as refused,
    ):
        fanout_start(FanoutRequest(workflow.key, "k", topic, {}))
    assert refused.value.status_code == 503
    assert not Fanout.objects.filter(workflow_key=workflow.key).exists()


@override_settings(NOTIFLOW_FANOUT_RESUME_AFTER_SECONDS=60)
def test_a_chunk_that_fails_is_rolled_back_given_back_and_says_why(monkeypatch):
    from workers.tasks import fanout_chunk_run

    workflow = a_workflow()
    topic, _ = audience(2)
    fanout, _ = fanout_start(FanoutRequest(workflow.key, "k", topic, {}))

    def broken(*args, **kwargs):
        raise RuntimeError("the database said no")

    monkeypatch.setattr(fanout_module, "_chunk_create", broken)
    with pytest.raises(RuntimeError):
        fanout_chunk_run(str(fanout.pk))

    stalled = Fanout.objects.get(pk=fanout.pk)
    assert (stalled.status, stalled.cursor, stalled.created) == ("running", 0, 0)
    assert "the database said no" in stalled.last_error
    assert (stalled.lease_until, stalled.leased_by, stalled.nudged_at) == (None, "", None)
    assert stalled.available_at > stalled.updated_at + timedelta(seconds=59)  # due again later
    assert fanout_chunk(fanout_id=fanout.pk, worker_id="w") is None  # not before


def test_a_key_limited_to_workflows_sees_and_starts_only_their_fanouts():
    from rest_framework.test import APIClient

    from triggers.api_keys import api_key_create

    mine, other = a_workflow(), a_workflow()
    topic, _ = audience(1)
    _, key = api_key_create(name=unique("limited"), workflows=[mine.key])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    theirs, _ = fanout_start(FanoutRequest(other.key, "k", topic, {}))

    body = {"workflow": other.key, "idempotency_key": "k2", "topic": topic}
    assert client.post(TRIGGERS, body, format="json").status_code == 403
    assert client.get(f"/api/fanouts/{theirs.pk}/").status_code == 404
    started = client.post(TRIGGERS, {**body, "workflow": mine.key}, format="json")
    assert started.status_code == 202
    assert client.get(f"/api/fanouts/{started.json()['fanout_id']}/").status_code == 200


@pytest.mark.parametrize("priority", [None, 7])
def test_a_chunks_runs_are_those_intake_makes_for_the_same_requests(published, priority):
    """The chunk's own statement stores what intake would: a request for one of its runs (the
    derived key, the recipient, the fan-out's payload, priority and cancellation key) finds that
    run (same request hash), and each run has its `created` event, by the fan-out's actor."""
    from triggers.models import TriggerEvent
    from triggers.services import TriggerRequest, triggers_create

    workflow = a_workflow()
    topic, keys = audience(3)
    odd = ["quote\"and'apostrophe", "ünïcode ☃ 𝄞", "plain"]  # (no \\: not a key, issue 43)
    Recipient.objects.bulk_create([Recipient(key=key) for key in odd])
    TopicSubscription.objects.bulk_create(
        [TopicSubscription(topic_id=topic, recipient_id=key) for key in odd]
    )
    request = FanoutRequest(
        workflow.key, "k", topic, {"n": "é"}, priority=priority, cancellation_key="c"
    )
    fanout, _ = fanout_start(request, actor="someone")

    assert run_to_the_end(fanout.pk) == [6]
    runs = runs_of(workflow)
    assert sorted(run.recipient for run in runs) == sorted(keys + odd)
    again = triggers_create(
        [
            TriggerRequest(
                workflow.key,
                fanout_run_key("k", key),
                {"n": "é"},
                priority=priority,
                cancellation_key="c",
                recipient=key,
            )
            for key in keys + odd
        ]
    )
    assert all(isinstance(o, tuple) and o[1] is False for o in again), again
    assert {o[0].pk for o in again} == {run.pk for run in runs}
    assert {run.priority for run in runs} == {workflow.priority if priority is None else priority}
    events = TriggerEvent.objects.filter(trigger__workflow=workflow, reason="created")
    assert sorted(e.trigger_id for e in events) == sorted(run.pk for run in runs)
    assert {e.actor for e in events} == {"someone"}


def test_a_run_key_a_client_used_with_other_parameters_is_left_out_and_named(published):
    from triggers.services import TriggerRequest, triggers_create

    workflow = a_workflow()
    topic, keys = audience(3)
    ((_, created),) = triggers_create(
        [TriggerRequest(workflow.key, fanout_run_key("k", keys[1]), {"other": 1})]
    )
    assert created
    fanout, _ = fanout_start(FanoutRequest(workflow.key, "k", topic, {}))

    assert run_to_the_end(fanout.pk) == [2]
    done = Fanout.objects.get(pk=fanout.pk)
    assert (done.status, done.created) == ("done", 2)
    assert (
        "1 run(s) left out" in done.last_error and fanout_run_key("k", keys[1]) in done.last_error
    )
    assert [run.pk for run in runs_of(workflow) if run.recipient == keys[1]] == []
    assert TriggerInstance.objects.filter(workflow=workflow).count() == 3  # two and the client's
