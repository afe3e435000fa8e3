"""The leased-work primitive (common/leased_work.py): its policies, every kind's statements held
to its discipline, its sweep of webhook deliveries (the runs' is tests/workers/test_sweeper.py's,
the fan-outs' tests/triggers/test_fanout.py's), and a wait's timeout as leased work."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from common import leased_work
from common.leased_work import nudge_schedule, renudge_lost, work_sweep
from events.models import WebhookDelivery
from events.services.dispatcher import delivery_claim
from events.services.endpoints import endpoint_ping
from events.work import DELIVERIES
from schedules.work import SCHEDULES
from tests.events.support import endpoint_on
from triggers.action_work import ACTIONS
from triggers.fanout_work import FANOUTS
from triggers.work import RUNS
from waits.work import WAITS

KINDS = (RUNS, DELIVERIES, FANOUTS, WAITS, ACTIONS, SCHEDULES)


@override_settings(NOTIFLOW_MAX_COUNTDOWN_SECONDS=300)
def test_work_due_within_the_cap_is_nudged_with_its_countdown_and_later_work_left_to_the_sweeper():
    assert nudge_schedule(-1) == (True, None)
    assert nudge_schedule(0) == (True, None)
    assert nudge_schedule(300) == (True, 300)
    assert nudge_schedule(300.5) == (False, None)


def test_lost_nudges_go_again_only_while_the_line_is_at_most_a_batch():
    assert renudge_lost(None, 10)  # the broker cannot say: a lost nudge must not stay lost
    assert renudge_lost(10, 10)
    assert not renudge_lost(11, 10)


@pytest.mark.parametrize("work", KINDS, ids=lambda work: work.name)
def test_every_kind_sweeps_with_whole_statements_of_the_one_discipline(work):
    """Each kind's two sweeps are its own files, nothing filled in (common/statements.py), and
    keep the primitive's rules: a batch taken FOR UPDATE SKIP LOCKED from the kind's table and
    marked nudged; due within the look-ahead and never nudged, or nudged long ago while lost
    nudges go again (back-pressure); expired by the one lease rule, whatever the line."""
    due, expired = work.sweep_due_sql, work.sweep_expired_sql
    for sql in (due, expired):
        assert sql.count(f"UPDATE {work.table} t SET nudged_at = statement_timestamp()") == 1  # noqa: S608
        assert "FOR UPDATE SKIP LOCKED" in sql and "LIMIT %(batch)s" in sql
        assert "{" not in sql and "@" not in sql  # no hole left for a template to fill
    assert "%(lookahead)s" in due and "%(renudge_lost)s" in due and "nudged_at IS NULL" in due
    assert "notiflow_lease_expired_v1(lease_until, statement_timestamp())" in expired
    assert "%(renudge_lost)s" not in expired  # expired leases go whatever the line
    assert "ORDER BY priority DESC, available_at" in RUNS.sweep_due_sql


@pytest.fixture
def line(monkeypatch):
    """The webhook queue's length as the sweep sees it."""
    waiting = {"length": 0}
    monkeypatch.setattr(leased_work, "nudges_waiting", lambda queues: waiting["length"])
    return waiting


def swept_ids(django_capture_on_commit_callbacks, batch: int | None = None) -> list[list[int]]:
    with django_capture_on_commit_callbacks():
        batches = work_sweep(DELIVERIES, batch=batch)
    return [[nudge.delivery_id for nudge in nudges] for nudges in batches]


@pytest.mark.django_db
def test_a_delivery_under_a_live_lease_is_left_alone_and_one_whose_lease_expired_is_nudged(
    receiver, line, django_capture_on_commit_callbacks
):
    delivery = endpoint_ping(endpoint_on(receiver)[0]).deliveries.get()
    assert delivery_claim(delivery.pk, worker_id="w") is not None  # clears nudged_at
    assert swept_ids(django_capture_on_commit_callbacks) == []
    line["length"] = 10_000  # an expired lease goes whatever the line
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        lease_until=timezone.now() - timedelta(minutes=1)
    )
    assert swept_ids(django_capture_on_commit_callbacks) == [[delivery.pk]]
    assert swept_ids(django_capture_on_commit_callbacks) == []  # nudged: not again at once


@pytest.mark.django_db
def test_due_deliveries_are_swept_oldest_first_in_batches_and_a_disabled_endpoints_not_at_all(
    receiver, line, django_capture_on_commit_callbacks
):
    endpoint, _ = endpoint_on(receiver)
    older, newer = (endpoint_ping(endpoint).deliveries.get() for _ in range(2))
    disabled, _ = endpoint_on(receiver)
    kept = endpoint_ping(disabled).deliveries.get()
    type(disabled).objects.filter(pk=disabled.pk).update(disabled_at=timezone.now())
    now = timezone.now()
    for delivery, age in ((older, 60), (newer, 30), (kept, 90)):
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            available_at=now - timedelta(seconds=age), nudged_at=None
        )
    assert swept_ids(django_capture_on_commit_callbacks, batch=1) == [[older.pk], [newer.pk]]
