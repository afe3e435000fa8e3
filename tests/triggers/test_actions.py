"""Bulk actions on runs (docs/bulk-actions.md; issue 49 §2): POST /api/triggers/actions/ and
GET /api/trigger-actions/<id>/ refuse every bad input with a 400 naming its path, a dry run
counts and shows without changing anything, the same idempotency key answers the same action,
and the chunks (triggers/actions.py, called here as the worker's task calls them) act on each
run once through the state machine, skipping what stopped matching. The end-to-end paths, with
real workers and one SIGKILLed, are test_actions_e2e.py's."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings
from rest_framework.test import APIClient

from common import broker
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node
from tests.triggers.support import failed, new_trigger
from triggers.action_work import ACTION_CHUNK_TASK
from triggers.actions import IDS_MAX, action_chunk, replay_key
from triggers.api_keys import api_key_create
from triggers.fanout_work import FANOUT_CHUNK_PRIORITY
from triggers.models import (
    ApiKeyScope,
    TriggerAction,
    TriggerActionStatus,
    TriggerInstance,
    TriggerStatus,
)
from triggers.state import trigger_cancel
from workflows.services import workflow_update

pytestmark = pytest.mark.django_db

ACTIONS = "/api/triggers/actions/"


def post(client: APIClient, body: Any) -> Any:
    return client.post(ACTIONS, body, format="json")


def chunks(action_id: Any, django_capture_on_commit_callbacks: Any) -> list[int | None]:
    """Run the action's chunk tasks as a worker would, until none is left to do."""
    reached: list[int | None] = []
    while True:
        with django_capture_on_commit_callbacks():
            result = action_chunk(action_id=action_id, worker_id="test-worker")
        reached.append(result)
        if result is None:
            return reached


@pytest.fixture
def workflow():
    return WorkflowFactory(definition=chain(delay_node("wait", delay_ms=3_600_000)))


# --- every bad input: a 400 naming its path --------------------------------------------------

BAD = [
    ({}, {"action", "filter"}),
    ({"action": "nuke", "filter": {"node": "x"}}, {"action"}),
    ({"action": "cancel", "filter": {}}, {"filter"}),
    ({"action": "cancel", "filter": "all"}, {"filter"}),
    ({"action": "cancel", "filter": {"node": "x"}, "force": True}, {"force"}),
    ({"action": "cancel", "filter": {"wrkflow": "x"}}, {"filter.wrkflow"}),
    ({"action": "cancel", "filter": {"workflow": "no-such-workflow"}}, {"filter.workflow"}),
    ({"action": "cancel", "filter": {"workflow": 7}}, {"filter.workflow"}),
    ({"action": "cancel", "filter": {"status": "failed"}}, {"filter.status"}),
    ({"action": "cancel", "filter": {"status": ["finished"]}}, {"filter.status.0"}),
    ({"action": "cancel", "filter": {"status": []}}, {"filter.status"}),
    ({"action": "cancel", "filter": {"created_after": "yesterday"}}, {"filter.created_after"}),
    (
        {
            "action": "cancel",
            "filter": {
                "created_after": "2026-11-02T00:00:00Z",
                "created_before": "2026-11-01T00:00:00Z",
            },
        },
        {"filter.created_before"},
    ),
    ({"action": "cancel", "filter": {"node": ""}}, {"filter.node"}),
    ({"action": "cancel", "filter": {"error_contains": ""}}, {"filter.error_contains"}),
    ({"action": "cancel", "filter": {"recipient": ["ann"]}}, {"filter.recipient"}),
    ({"action": "cancel", "filter": {"ids": [str(uuid.uuid4()), 5]}}, {"filter.ids.1"}),
    ({"action": "cancel", "filter": {"ids": ["not-a-uuid"]}}, {"filter.ids.0"}),
    (
        {"action": "cancel", "filter": {"ids": [str(uuid.uuid4()) for _ in range(IDS_MAX + 1)]}},
        {"filter.ids"},
    ),
    ({"action": "cancel", "filter": {"node": "x"}, "dry_run": "yes"}, {"dry_run"}),
    ({"action": "cancel", "filter": {"node": "x"}, "idempotency_key": ""}, {"idempotency_key"}),
    ({"action": "cancel", "filter": {"node": "x"}, "idempotency_key": 12}, {"idempotency_key"}),
    ([{"action": "cancel"}], {"body"}),
]


def paths(errors: Any, prefix: str = "") -> set[str]:
    """The paths of DRF's nested errors: {"filter": {"ids": {"1": [...]}}} -> filter.ids.1."""
    if isinstance(errors, dict):
        return {p for name, value in errors.items() for p in paths(value, f"{prefix}{name}.")}
    return {prefix.rstrip(".")}


@pytest.mark.parametrize(("body", "named"), BAD)
def test_every_bad_input_is_a_400_naming_its_path_and_stores_nothing(api_client, body, named):
    response = post(api_client, body)

    assert response.status_code == 400, response.content
    assert paths(response.json()["errors"]) == named
    assert not TriggerAction.objects.exists()


@override_settings(NOTIFLOW_ACTION_MAX=2)
def test_more_matches_than_the_maximum_is_a_400_saying_how_many(api_client, workflow):
    for _ in range(3):
        new_trigger(workflow)

    for dry_run in (True, False):
        body = {"action": "cancel", "filter": {"workflow": workflow.key}, "dry_run": dry_run}
        response = post(api_client, body)
        assert response.status_code == 400, response.content
        assert response.json()["matched"] == 3
        assert "3 runs match" in response.json()["errors"]["filter"][0]
        assert "NOTIFLOW_ACTION_MAX" in response.json()["detail"]
    assert not TriggerAction.objects.exists()


# --- scopes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("workflows", [[], ["mine"]], ids=["trigger key", "limited key"])
def test_bulk_actions_need_the_admin_scope(workflows):
    _, key = api_key_create(name=unique("k"), scope=ApiKeyScope.TRIGGER, workflows=workflows)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")

    body = {"action": "cancel", "filter": {"node": "x"}, "dry_run": True}
    assert post(client, body).status_code == 403
    assert client.get(f"/api/trigger-actions/{uuid.uuid4()}/").status_code == 403
    assert APIClient().post(ACTIONS, body, format="json").status_code == 401


# --- dry run ---------------------------------------------------------------------------------


def test_a_dry_run_counts_the_runs_the_action_applies_to_and_changes_nothing(api_client, workflow):
    waiting = [new_trigger(workflow) for _ in range(2)]
    broken = failed(new_trigger(workflow), "SMTP 421 try later")
    new_trigger()  # another workflow's
    before = list(TriggerInstance.objects.order_by("pk").values())

    def dry(action: str, **run_filter: Any) -> dict[str, Any]:
        body = {"action": action, "filter": run_filter, "dry_run": True}
        response = post(api_client, body)
        assert response.status_code == 200, response.content
        return response.json()

    cancel = dry("cancel", workflow=workflow.key)
    assert cancel["matched"] == 2  # unfinished only
    assert {run["id"] for run in cancel["sample"]} == {str(run.pk) for run in waiting}
    retry = dry("retry", workflow=workflow.key)
    assert (retry["matched"], [run["id"] for run in retry["sample"]]) == (1, [str(broken.pk)])
    assert dry("replay", workflow=workflow.key)["matched"] == 3  # any run
    assert dry("retry", error_contains="smtp 421")["matched"] == 1
    assert dry("retry", error_contains="550")["matched"] == 0
    assert dry("cancel", ids=[str(waiting[0].pk), str(broken.pk)])["matched"] == 1
    assert dry("cancel", node="wait", status=["failed"])["matched"] == 0
    assert list(TriggerInstance.objects.order_by("pk").values()) == before
    assert not TriggerAction.objects.exists()


# --- the action, chunk by chunk --------------------------------------------------------------


@override_settings(NOTIFLOW_ACTION_CHUNK_SIZE=2)
def test_cancel_acts_chunk_by_chunk_and_skips_a_run_that_finished_meanwhile(
    api_client, workflow, django_capture_on_commit_callbacks
):
    runs = sorted((new_trigger(workflow) for _ in range(5)), key=lambda run: run.pk)
    body = {"action": "cancel", "filter": {"workflow": workflow.key}}
    with django_capture_on_commit_callbacks(execute=False) as published:
        response = post(api_client, body)
    assert response.status_code == 202, response.content
    answer = response.json()
    assert (answer["matched"], answer["status"], answer["done"]) == (5, "running", 0)
    assert len(published) == 1  # the first chunk task, after commit
    trigger_cancel(trigger_id=runs[3].pk, actor="someone else")  # finished before its chunk

    assert chunks(answer["action_id"], django_capture_on_commit_callbacks) == [2, 2, 1, None]

    shown = api_client.get(f"/api/trigger-actions/{answer['action_id']}/").json()
    assert {k: shown[k] for k in ("status", "matched", "done", "skipped", "errors")} == {
        "status": "done",
        "matched": 5,
        "done": 4,
        "skipped": 1,
        "errors": 0,
    }
    assert shown["requested_by"].startswith("api:") and shown["filter"] == body["filter"]
    statuses = TriggerInstance.objects.filter(workflow=workflow).values_list("status", flat=True)
    assert set(statuses) == {TriggerStatus.CANCELLED}
    reasons = runs[0].events.values_list("reason", flat=True)
    assert f"bulk action {answer['action_id']} (cancel)" in reasons


def test_retry_puts_failed_runs_back_and_skips_one_that_is_no_longer_failed(
    api_client, workflow, django_capture_on_commit_callbacks
):
    broken = [failed(new_trigger(workflow)) for _ in range(3)]
    body = {"action": "retry", "filter": {"workflow": workflow.key, "status": ["failed"]}}
    action_id = post(api_client, body).json()["action_id"]
    TriggerInstance.objects.filter(pk=broken[1].pk).update(deleted_at="2026-01-01T00:00:00Z")

    chunks(action_id, django_capture_on_commit_callbacks)

    action = TriggerAction.objects.get(pk=action_id)
    assert (action.status, action.done, action.skipped) == ("done", 2, 1)
    for run, expected in zip(broken, ["enqueued", "failed", "enqueued"], strict=True):
        run.refresh_from_db()
        assert run.status == expected
    assert broken[0].attempts == 0 and broken[0].last_error == ""


def test_replay_makes_one_new_run_per_run_of_the_same_version_and_never_a_second(
    api_client, workflow, django_capture_on_commit_callbacks
):
    original = new_trigger(workflow, name="Ann")
    TriggerInstance.objects.filter(pk=original.pk).update(
        recipient="ann", locale="fr", tenant="acme"
    )
    old_version = original.workflow_version_id
    # A newer version must not be the replay's.
    workflow_update(workflow=workflow, definition=chain(delay_node("later", delay_ms=1000)))
    body = {"action": "replay", "filter": {"ids": [str(original.pk)]}, "idempotency_key": "r-1"}
    action_id = post(api_client, body).json()["action_id"]

    chunks(action_id, django_capture_on_commit_callbacks)
    # The same chunk done again (as by a worker whose commit was not seen): nothing new.
    TriggerAction.objects.filter(pk=action_id).update(status="running", cursor=0)
    chunks(action_id, django_capture_on_commit_callbacks)

    replay = TriggerInstance.objects.get(idempotency_key=replay_key(action_id, original.pk))
    assert (replay.workflow_version_id, replay.payload) == (old_version, original.payload)
    assert (replay.recipient, replay.locale, replay.tenant) == ("ann", "fr", "acme")
    assert replay.status == "enqueued"
    assert replay.current_node_id == "wait" and replay.pk != original.pk
    assert TriggerInstance.objects.filter(workflow=workflow).count() == 2
    action = TriggerAction.objects.get(pk=action_id)
    assert (action.done, action.skipped) == (1, 1)  # the second pass found it replayed


def test_the_same_idempotency_key_answers_the_same_action_and_another_request_is_a_422(
    api_client, workflow
):
    new_trigger(workflow)
    body = {"action": "cancel", "filter": {"workflow": workflow.key}, "idempotency_key": "k-1"}

    first, again = post(api_client, body), post(api_client, body)
    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json()["action_id"] == first.json()["action_id"]
    other = post(api_client, {**body, "action": "replay"})
    assert other.status_code == 422
    assert other.json()["existing_action_id"] == first.json()["action_id"]
    assert list(other.json()["errors"]) == ["idempotency_key"]
    assert TriggerAction.objects.count() == 1


def test_an_action_matching_nothing_is_done_at_once(api_client, workflow):
    response = post(api_client, {"action": "retry", "filter": {"workflow": workflow.key}})

    assert response.status_code == 202
    assert (response.json()["status"], response.json()["matched"]) == ("done", 0)
    assert response.json()["finished_at"] is not None


def test_a_chunk_that_raises_is_rolled_back_and_the_action_fails_after_three(
    api_client, workflow, django_capture_on_commit_callbacks, monkeypatch
):
    run = new_trigger(workflow)
    action_id = post(api_client, {"action": "cancel", "filter": {"ids": [str(run.pk)]}}).json()[
        "action_id"
    ]
    from triggers import actions

    def broken(**kwargs: Any) -> list[Any]:
        raise RuntimeError("database says no")

    monkeypatch.setattr(actions, "triggers_cancel_many", broken)
    for attempt in range(3):
        TriggerAction.objects.filter(pk=action_id).update(available_at="2000-01-01T00:00:00Z")
        with pytest.raises(RuntimeError):
            action_chunk(action_id=action_id, worker_id="w")
        action = TriggerAction.objects.get(pk=action_id)
        assert action.attempts == attempt + 1 and "database says no" in action.last_error
    assert action.status == TriggerActionStatus.FAILED and action.cursor == 0
    assert TriggerInstance.objects.get(pk=run.pk).status == "enqueued"


def test_a_missing_action_is_a_404_naming_it(api_client):
    missing = uuid.uuid4()
    response = api_client.get(f"/api/trigger-actions/{missing}/")
    assert response.status_code == 404
    assert response.json()["detail"] == f"no bulk action '{missing}'"


def test_an_actions_chunk_task_goes_ahead_of_the_runs_nudges(
    api_client, workflow, django_capture_on_commit_callbacks, monkeypatch
):
    # A cancel asked during a backlog must not wait behind it: its chunks go at the top of the
    # scale, as a fan-out's do (docs/design/recipients.md, "Chunks before runs").
    new_trigger(workflow)
    calls: list[tuple[str, list]] = []
    monkeypatch.setattr(
        broker, "tasks_publish", lambda name, c, **options: calls.append((name, list(c)))
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = post(api_client, {"action": "cancel", "filter": {"workflow": workflow.key}})
    assert response.status_code == 202, response.content
    assert [(name, [c.priority for c in batch]) for name, batch in calls] == [
        (
            ACTION_CHUNK_TASK,
            [broker.broker_priority(FANOUT_CHUNK_PRIORITY, broker_url=settings.CELERY_BROKER_URL)],
        )
    ]
