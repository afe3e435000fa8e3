"""Queues and priorities (docs/design/rules.md, rule 11), in process: dotted workflow keys, a
workflow's queue and priority, a trigger's own priority, and the route of every kind of nudge
(intake, a step's release, the sweeper, an operator's retry)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node, sms_node
from tests.triggers.support import TOKEN, claimed, failed, new_trigger
from triggers import dispatch
from triggers.models import TriggerInstance
from triggers.state import trigger_retry_now
from triggers.steps import Release, trigger_release
from workers.services.sweeper import sweep
from workflows.services import workflow_update

pytestmark = pytest.mark.django_db


def body(key: str, **overrides):
    return {"key": key, "name": "Invoices", **chain(email_node(), sms_node()), **overrides}


def _body_with(field: str, value) -> dict:
    return {**body(unique("wf")), field: value}


@pytest.fixture
def published(monkeypatch) -> list[dispatch.Nudge]:
    """Every nudge published, instead of reaching the broker (run the on-commit callbacks)."""
    nudges: list[dispatch.Nudge] = []
    monkeypatch.setattr(dispatch, "triggers_publish", nudges.extend)
    return nudges


# --- workflows: keys, queue, priority -----------------------------------------------------------


def test_a_dotted_key_names_its_queue_and_an_undotted_one_the_default(api_client):
    dotted = f"billing-{unique()}.invoice_due.v1"
    response = api_client.post("/api/workflows/", body(dotted), format="json")
    assert response.status_code == 201, response.json()
    assert (response.json()["queue"], response.json()["priority"]) == (dotted.split(".")[0], 5)
    assert api_client.get(f"/api/workflows/{dotted}/").json()["key"] == dotted  # routable

    plain = unique("welcome")
    assert api_client.post("/api/workflows/", body(plain), format="json").json()["queue"] == (
        "default"
    )


def test_an_operator_sets_the_queue_and_priority_and_empty_means_the_default(api_client):
    key = f"auth-{unique()}.password_reset"
    created = api_client.post(
        "/api/workflows/", body(key, queue="urgent", priority=9), format="json"
    ).json()
    assert (created["queue"], created["priority"], created["version"]) == ("urgent", 9, 1)
    edited = api_client.patch(f"/api/workflows/{key}/", {"queue": ""}, format="json").json()
    # Queue and priority are the workflow's, not a version's: no new version.
    assert (edited["queue"], edited["priority"], edited["version"]) == (key.split(".")[0], 9, 1)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("key", "billing..v1"),
        ("key", ".billing"),
        ("key", "billing."),
        ("key", "bill ing"),
        ("queue", "a..b"),
        ("queue", "with space"),
        ("priority", 10),
        ("priority", -1),
        ("priority", "high"),
    ],
)
def test_bad_keys_queues_and_priorities_are_refused_naming_the_field(api_client, field, value):
    response = api_client.post("/api/workflows/", _body_with(field, value), format="json")
    assert response.status_code == 400
    assert field in response.json()["errors"]


# --- triggers: priority -------------------------------------------------------------------------


def test_a_trigger_takes_the_workflow_priority_unless_it_sets_its_own(
    api_client, published, django_capture_on_commit_callbacks
):
    workflow = WorkflowFactory(key=f"billing-{unique()}.invoice", priority=3)
    with django_capture_on_commit_callbacks(execute=True):
        default = api_client.post(
            "/api/triggers/", {"workflow": workflow.key, "idempotency_key": "a"}, format="json"
        )
        own = api_client.post(
            "/api/triggers/",
            {"workflow": workflow.key, "idempotency_key": "b", "priority": 9},
            format="json",
        )
    assert (default.status_code, own.status_code) == (201, 201)
    assert (default.json()["priority"], own.json()["priority"]) == (3, 9)
    queue = workflow.key.split(".")[0]
    assert [(n.queue, n.priority) for n in published] == [(queue, 3), (queue, 9)]


@pytest.mark.parametrize("priority", [10, -1, "urgent", 2.5, True, None])
def test_a_trigger_priority_outside_0_to_9_is_refused(api_client, priority):
    workflow = WorkflowFactory()
    response = api_client.post(
        "/api/triggers/",
        {"workflow": workflow.key, "idempotency_key": "k", "priority": priority},
        format="json",
    )
    assert response.status_code == 400
    assert "priority" in response.json()["errors"]
    assert not TriggerInstance.objects.filter(workflow=workflow).exists()


# --- routes: release, sweeper, operator retry ---------------------------------------------------


def test_the_next_step_goes_to_the_queue_the_workflow_has_now():
    """A run in flight follows its workflow's queue as it is when its next step is nudged."""
    trigger = claimed(new_trigger(priority=7), lease_seconds=60)
    workflow_update(workflow=trigger.workflow, queue="moved")
    route = trigger_release(
        trigger=trigger,
        lease_token=TOKEN,
        release=Release(
            status="enqueued",
            current_node_id=trigger.current_node_id,
            wait=timedelta(0),
            reason="next step",
        ),
    )
    assert route is not None and (route.queue, route.priority) == ("moved", 7)


@override_settings(NOTIFLOW_SWEEP_BATCH_SIZE=1)
def test_the_sweeper_nudges_the_most_urgent_first_each_to_its_queue(monkeypatch):
    monkeypatch.setattr("common.leased_work.nudges_waiting", lambda queues: 0)
    past = timezone.now() - timedelta(minutes=5)
    made = []
    for priority, queue in ((1, "low"), (9, "high"), (5, "mid")):
        workflow = WorkflowFactory(queue=queue)
        made.append(new_trigger(workflow=workflow, priority=priority))
    TriggerInstance.objects.filter(pk__in=[t.pk for t in made]).update(
        available_at=past, nudged_at=None
    )
    batches = sweep()  # one trigger a batch: the order in which they are picked
    assert [[(n.queue, n.priority) for n in batch] for batch in batches] == [
        [("high", 9)],
        [("mid", 5)],
        [("low", 1)],
    ]


def test_an_operator_retry_goes_to_the_workflow_queue_at_the_trigger_priority(
    published, django_capture_on_commit_callbacks
):
    trigger = failed(new_trigger(workflow=WorkflowFactory(queue="ops"), priority=2))
    with django_capture_on_commit_callbacks(execute=True):
        trigger_retry_now(trigger_id=trigger.pk, actor="test")
    assert [(n.queue, n.priority) for n in published] == [("ops", 2)]
