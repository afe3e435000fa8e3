"""Claiming (docs/design/rules.md, rule 3): one conditional UPDATE, exactly one winner, a lease that fences."""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from tests.factories import WorkflowFactory, chain, delay_node
from tests.support.functions import claim_lock_sql
from tests.triggers.support import claim
from triggers.models import TriggerInstance
from triggers.services import trigger_create
from triggers.steps import Release, trigger_release


def make_trigger(**changes) -> TriggerInstance:
    # Far in the future, so the running stack's sweeper and workers leave it alone until we move it.
    workflow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=0)))
    trigger, _ = trigger_create(workflow_key=workflow.key, idempotency_key="k", payload={})
    TriggerInstance.objects.filter(pk=trigger.pk).update(**changes)
    return trigger


@pytest.mark.django_db
class TestClaimRules:
    def test_due_enqueued_trigger_is_claimed_with_lease(self):
        trigger = make_trigger()
        claimed = claim(trigger_id=trigger.pk, worker_id="w/1", lease_seconds=30)
        assert claimed is not None and claimed.status == "processing" and claimed.leased_by == "w/1"
        assert claimed.lease_until > timezone.now() + timedelta(seconds=25)
        assert claimed.payload == {} and claimed.current_node_id == "wait"
        assert claimed.events.latest("id").reason == "claimed"

    def test_second_claim_while_leased_gets_nothing(self):
        trigger = make_trigger()
        assert claim(trigger_id=trigger.pk, worker_id="w/1", lease_seconds=30)
        assert claim(trigger_id=trigger.pk, worker_id="w/2", lease_seconds=30) is None

    def test_trigger_not_yet_due_is_not_claimed(self):
        trigger = make_trigger(available_at=timezone.now() + timedelta(minutes=5))
        assert claim(trigger_id=trigger.pk, worker_id="w", lease_seconds=30) is None

    @pytest.mark.parametrize("status", ["completed", "failed", "cancelled"])
    def test_terminal_trigger_is_not_claimed(self, status):
        trigger = make_trigger(status=status)
        assert claim(trigger_id=trigger.pk, worker_id="w", lease_seconds=30) is None

    def test_expired_lease_is_reclaimed_and_fences_the_old_holder(self):
        trigger = make_trigger()
        first = claim(trigger_id=trigger.pk, worker_id="old", lease_seconds=30)
        assert first is not None
        TriggerInstance.objects.filter(pk=trigger.pk).update(
            lease_until=timezone.now() - timedelta(seconds=1)
        )
        second = claim(trigger_id=trigger.pk, worker_id="new", lease_seconds=30)
        assert second is not None and second.leased_by == "new"
        assert second.events.latest("id").reason == "lease expired; reclaimed"
        assert (first.attempts, second.attempts) == (0, 1)  # the dead holder's try counts
        released = trigger_release(
            trigger=first,
            lease_token="old",
            release=Release(
                status="completed",
                current_node_id=None,
                vars_patch={"x": 1},
                attempts=0,
                wait=timedelta(0),
                nudged=False,
                last_error="",
                reason="zombie",
            ),
        )
        assert released is None
        assert TriggerInstance.objects.get(pk=trigger.pk).status == "processing"

    def test_unknown_trigger_is_not_claimed(self):
        assert (
            claim(
                trigger_id="00000000-0000-0000-0000-000000000000", worker_id="w", lease_seconds=30
            )
            is None
        )


@pytest.mark.e2e
def test_ten_concurrent_claims_have_exactly_one_winner(e2e):
    # Inserted directly, without a nudge, and "nudged" just now so that the live stack's workers
    # and sweeper leave it alone: this race is between the ten racers only.
    workflow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=0)))
    trigger = TriggerInstance.objects.create(
        workflow=workflow,
        workflow_version=workflow.current_version,
        idempotency_key="race",
        status="processing",
        current_node_id="wait",
        available_at=timezone.now(),
        lease_until=timezone.now() + timedelta(days=1),
        nudged_at=timezone.now(),
    )
    test_database = connection.settings_dict["NAME"]
    start = threading.Barrier(10)
    winners: list[str] = []
    errors: list[BaseException] = []

    def race(n: int) -> None:
        try:
            # pytest-django points only the main thread's connection at the test database.
            connection.settings_dict["NAME"] = test_database
            start.wait(timeout=10)
            if claim(trigger_id=trigger.pk, worker_id=f"racer/{n}", lease_seconds=60):
                winners.append(f"racer/{n}")
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    # Make it claimable (expired lease) only once every racer is ready.
    threads = [threading.Thread(target=race, args=(n,)) for n in range(10)]
    TriggerInstance.objects.filter(pk=trigger.pk).update(
        lease_until=timezone.now() - timedelta(days=1)
    )
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert errors == []
    assert len(winners) == 1
    assert TriggerInstance.objects.get(pk=trigger.pk).leased_by == winners[0]


@pytest.mark.django_db
def test_the_claim_finds_its_row_by_the_primary_key_on_a_table_not_yet_analysed():
    """The claim reads one row by id. A `deleted_at IS NULL` beside that id once let the planner
    scan the whole partial unique index (workflow, idempotency_key) WHERE deleted_at IS NULL
    instead, on a fresh table (the bench's), costing every step a scan of every trigger."""
    workflow = WorkflowFactory()
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {TriggerInstance._meta.db_table} (id, workflow_id, workflow_version_id,"  # noqa: S608
            " idempotency_key, payload, status, current_node_id, vars, attempts, available_at,"
            " leased_by, last_error, created_at, updated_at)"
            " SELECT gen_random_uuid(), %s, %s, gen_random_uuid()::text, '{}', %s, 'email', '{}',"
            " 0, now(), '', '', now(), now() FROM generate_series(1, 2000)",
            [workflow.pk, workflow.current_version_id, "enqueued"],
        )
        cursor.execute(f"SELECT id FROM {TriggerInstance._meta.db_table} LIMIT 1")  # noqa: S608
        (trigger_id,) = cursor.fetchone()
        cursor.execute("EXPLAIN " + claim_lock_sql(), {"id": trigger_id})
        plan = "\n".join(row[0] for row in cursor.fetchall())
    scans = re.findall(r"Scan using (\w+) on trigger_instance", plan)
    assert scans and set(scans) == {"trigger_instance_pkey"}, plan
