"""wait_event in-process: a run parks `waiting`, an event (or its timeout) resumes it exactly
once, `vars.<id>` says which and `when` branches on it; an event that came first within the
lookback is taken at once; matching is by the rendered `match` values."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from recipients.models import Recipient
from tests.conftest import unique
from tests.factories import email_node, sms_node
from tests.support.waits import waits_time_out
from tests.workers.helpers import due_trigger
from triggers.models import TriggerEvent, TriggerInstance
from triggers.state import trigger_cancel, triggers_cancel_by_key
from waits.models import EventWait, ReceivedEvent
from waits.services import CONFLICT, CREATED, SAME, event_receive
from workers.models import StepExecutionLog
from workers.services.engine import step_execute

pytestmark = [pytest.mark.django_db]


def wait_node(**fields):
    return {
        "id": "paid",
        "type": "wait_event",
        "event": "order.paid",
        "match": {"order_id": "{{ payload.order_id }}"},
        "timeout": "1h",
        **fields,
    }


def definition(**fields):
    return {
        "entry_node_id": "paid",
        "nodes": [wait_node(**fields), email_node("thanks"), sms_node("nudge")],
        "edges": [
            {"from": "paid", "to": "thanks", "when": "vars.paid.received"},
            {"from": "paid", "to": "nudge"},
        ],
    }


PAYLOAD = {"email": "ada@example.com", "name": "Ada", "phone": "+15550199", "order_id": "o-1"}


@pytest.fixture(autouse=True)
def locmem_email():
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        yield


def step(trigger: TriggerInstance) -> TriggerInstance:
    """One step, made due first if it is enqueued (in a test's transaction, the database's
    now() stands still)."""
    TriggerInstance.objects.filter(pk=trigger.pk, status="enqueued").update(
        available_at=timezone.now() - timedelta(days=1)
    )
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    trigger.refresh_from_db()
    return trigger


def parked(**fields) -> TriggerInstance:
    trigger = step(due_trigger(definition(**fields), payload=PAYLOAD))
    assert trigger.status == "waiting", trigger.last_error
    assert trigger.current_node_id == "paid"
    return trigger


def post(name="order.paid", event_id="evt_1", **data):
    return event_receive(name=name, event_id=event_id, data=data, actor="api:test")


def test_a_run_waits_until_its_event_and_follows_the_received_edge():
    trigger = parked()
    wait = EventWait.objects.get(trigger_id=trigger.pk)
    assert wait.match == {"order_id": "o-1"} and wait.resolved_at is None
    assert abs(trigger.available_at - wait.deadline) < timedelta(seconds=1)
    assert TriggerEvent.objects.filter(trigger=trigger, to_status="waiting").exists()

    assert post(order_id="o-2").resumed == 0  # another order: not this run
    outcome = post(event_id="evt_2", order_id="o-1", amount=12)
    assert (outcome.outcome, outcome.resumed) == (CREATED, 1)
    trigger.refresh_from_db()
    assert trigger.status == "enqueued" and trigger.available_at <= timezone.now()
    resumed = TriggerEvent.objects.get(trigger=trigger, from_status="waiting")
    assert (resumed.to_status, resumed.reason, resumed.actor, resumed.node_id) == (
        "enqueued",
        "event order.paid evt_2",
        "api:test",
        "paid",
    )

    trigger = step(trigger)
    assert trigger.vars["paid"]["received"] is True
    assert trigger.vars["paid"]["timed_out"] is False
    assert trigger.vars["paid"]["event"]["data"] == {"order_id": "o-1", "amount": 12}
    assert trigger.current_node_id == "thanks"
    step(trigger)
    assert len(mail.outbox) == 1


def test_a_number_in_the_event_matches_its_rendered_text():
    trigger = parked()
    assert (
        event_receive(name="order.paid", event_id="n", data={"order_id": "o-1"}, actor="t").resumed
        == 1
    )
    # and the same event again resumes nothing (and says it is the same)
    again = event_receive(name="order.paid", event_id="n", data={"order_id": "o-1"}, actor="t")
    assert (again.outcome, again.resumed) == (SAME, 0)
    changed = event_receive(name="order.paid", event_id="n", data={"order_id": "x"}, actor="t")
    assert changed.outcome == CONFLICT
    assert step(trigger).current_node_id == "thanks"


def test_a_timed_out_wait_follows_the_other_edge_and_says_so():
    trigger = parked(timeout="1s")
    EventWait.objects.filter(trigger_id=trigger.pk).update(
        deadline=timezone.now() - timedelta(days=1)  # before the test transaction's now()
    )
    assert waits_time_out() == 1
    assert waits_time_out() == 0
    resumed = TriggerEvent.objects.get(trigger=trigger, from_status="waiting")
    assert (resumed.to_status, resumed.reason, resumed.actor, resumed.node_id) == (
        "enqueued",
        "wait timed out",
        "sweeper",
        "paid",
    )
    assert post(order_id="o-1").resumed == 0  # too late: the timeout won
    trigger = step(trigger)
    assert trigger.vars["paid"] == {"received": False, "event": None, "timed_out": True}
    assert trigger.current_node_id == "nudge"


def test_an_event_that_came_first_is_taken_within_the_lookback_only():
    post(event_id="early", order_id="o-1")
    # a minute before the runs below reach the node (the test's transaction stops the clock)
    ReceivedEvent.objects.update(created_at=timezone.now() - timedelta(minutes=1))
    without = step(due_trigger(definition(), payload=PAYLOAD))
    assert without.status == "waiting"  # lookback 0: an earlier event does not count
    trigger = step(due_trigger(definition(lookback="1h"), payload=PAYLOAD))
    assert trigger.status == "enqueued" and trigger.current_node_id == "thanks"
    assert trigger.vars["paid"]["event"]["id"] == "early"


def test_an_empty_match_takes_any_event_of_the_name():
    trigger = parked(match={})
    assert post(event_id="any", whatever=1).resumed == 1
    assert step(trigger).vars["paid"]["received"] is True


def test_one_event_resumes_every_run_waiting_for_it():
    runs = [parked() for _ in range(3)]
    assert post(order_id="o-1").resumed == 3
    assert {r.status for r in TriggerInstance.objects.filter(pk__in=[r.pk for r in runs])} == {
        "enqueued"
    }


def test_a_cancelled_waiting_run_is_not_resumed_and_its_wait_closes():
    trigger = parked()
    other = parked()
    trigger_cancel(trigger_id=trigger.pk, actor="admin:op", reason="no")
    trigger.refresh_from_db()
    assert trigger.status == "cancelled"
    # Closed in the cancel's transaction, not left open until its deadline; the other stays.
    closed = EventWait.objects.get(trigger_id=trigger.pk)
    assert closed.resolved_at is not None and closed.resolved_by == "cancelled"
    assert (closed.received, closed.timed_out) == (False, False)
    assert EventWait.objects.get(trigger_id=other.pk).resolved_at is None
    assert post(order_id="o-1").resumed == 1  # the other one only
    trigger.refresh_from_db()
    assert trigger.status == "cancelled"


def test_a_cancel_by_key_closes_the_waits_of_the_runs_it_stops():
    trigger = parked()
    TriggerInstance.objects.filter(pk=trigger.pk).update(cancellation_key="cart-9")
    assert triggers_cancel_by_key(cancellation_key="cart-9", actor="api:k") == [trigger.pk]
    assert EventWait.objects.get(trigger_id=trigger.pk).resolved_by == "cancelled"


def test_the_event_lookup_uses_the_index():
    # Open waits of many names, analysed: on an empty table every index costs the same, and the
    # planner's pick of one of them depended on what earlier tests had left.
    trigger = due_trigger(definition(), payload=PAYLOAD)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO event_wait (trigger_id, node_id, workflow_id, name, match, match_hash,"
            " deadline, received, timed_out, resolved_by)"
            " SELECT %s, 'n' || i, %s, 'evt' || i %% 50, '{}', md5(i::text),"
            " now() + i * interval '1 second', false, false, ''"
            " FROM generate_series(1, 500) AS i",
            [trigger.pk, trigger.workflow_id],
        )
        cursor.execute("ANALYZE event_wait")
        cursor.execute("SET enable_seqscan = off")
        cursor.execute(
            "EXPLAIN SELECT id FROM event_wait WHERE name = 'x' AND match_hash = ANY(%s) "
            "AND resolved_at IS NULL",
            [["a", "b"]],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
        cursor.execute("RESET enable_seqscan")
    assert "event_wait_open_idx" in plan


def test_purge_events_keeps_what_the_longest_lookback_may_still_take():
    from waits.services import events_purge

    due_trigger(definition(lookback="2d"), payload=PAYLOAD)  # a version declaring 2 days
    post(event_id="old")
    post(event_id="older")
    ReceivedEvent.objects.filter(event_id="old").update(
        created_at=timezone.now() - timedelta(days=1)
    )
    ReceivedEvent.objects.filter(event_id="older").update(
        created_at=timezone.now() - timedelta(days=3)
    )
    assert events_purge(older_than=timedelta(hours=1)) == (1, 0)
    assert set(ReceivedEvent.objects.values_list("event_id", flat=True)) == {"old"}


def test_purge_events_takes_every_old_event_in_batches_along_their_time_and_no_newer_one():
    """Each batch starts where the last ended (EVENTS_PURGE_SQL's `after`); events of one
    instant across a batch's end are all taken, and one just inside the period is kept."""
    from waits.services import events_purge

    now = timezone.now()
    for n in range(7):
        post(event_id=f"old-{n}")
    post(event_id="recent")
    times = (
        [now - timedelta(days=9)] * 3
        + [now - timedelta(days=8)] * 3
        + [now - timedelta(days=2, hours=1)]
    )
    for n, when in enumerate(times):
        ReceivedEvent.objects.filter(event_id=f"old-{n}").update(created_at=when)
    ReceivedEvent.objects.filter(event_id="recent").update(created_at=now - timedelta(hours=47))

    assert events_purge(older_than=timedelta(days=2), batch=2) == (7, 0)
    assert list(ReceivedEvent.objects.values_list("event_id", flat=True)) == ["recent"]


def test_purge_events_dry_run_counts_the_received_events_and_waits_it_would_delete():
    from io import StringIO

    from django.core.management import call_command

    cancelled = parked()
    trigger_cancel(trigger_id=cancelled.id, actor="test")  # closes its wait: resolved, run ended
    post(event_id="stale")
    long_ago = timezone.now() - timedelta(days=40)
    ReceivedEvent.objects.filter(event_id="stale").update(created_at=long_ago)
    EventWait.objects.filter(trigger_id=cancelled.id).update(resolved_at=long_ago)

    out = StringIO()
    call_command("purge_events", "--older-than", "30d", "--dry-run", stdout=out)
    assert "Would delete 1 received event(s) and 1 event wait(s)." in out.getvalue()
    assert ReceivedEvent.objects.filter(event_id="stale").exists()
    assert EventWait.objects.filter(trigger_id=cancelled.id).exists()

    out = StringIO()
    call_command("purge_events", "--older-than", "30d", stdout=out)
    assert "Deleted 1 received event(s) and 1 event wait(s)." in out.getvalue()
    assert not EventWait.objects.filter(trigger_id=cancelled.id).exists()


def test_a_match_reads_the_runs_recipient_as_any_template_does():
    """`recipient` is in a wait_event's context as in a send's: the engine reads the recipient
    for a step whose match names it (NodeType.template_sources), and the step log keeps what it
    read."""
    ada = Recipient.objects.create(key=unique("user"), properties={"account": "acct-7"})
    match = {"user": "{{ recipient.id }}", "account": "{{ recipient.properties.account }}"}
    trigger = step(due_trigger(definition(match=match), payload=PAYLOAD, recipient=ada.key))
    assert trigger.status == "waiting", trigger.last_error
    wait = EventWait.objects.get(trigger_id=trigger.pk)
    assert wait.match == {"user": ada.key, "account": "acct-7"}
    log = StepExecutionLog.objects.get(trigger_id=trigger.pk, node_id="paid")
    assert log.input["recipient"] == {"id": ada.key, "properties": {"account": "acct-7"}}

    post(user=ada.key, account="acct-7")
    assert step(trigger).current_node_id == "thanks"


def test_a_wait_timeout_is_leased_work_taken_once_given_back_while_its_run_is_busy(
    monkeypatch, django_capture_on_commit_callbacks
):
    """waits/work.py: the waits' sweep nudges a timeout task per wait due, on its run's queue at
    its run's priority; the task leases the wait, so a copy of it does nothing while another
    worker holds it; a worker that died is replaced once its lease expired, whatever the line;
    a run being worked on is not waited for: the wait goes back, due."""
    from dataclasses import replace

    from common import leased_work
    from common.leased_work import work_sweep
    from waits.services import RESUMED, wait_time_out
    from waits.work import WAITS

    monkeypatch.setattr(leased_work, "nudges_waiting", lambda queues: 10_000)  # a long line
    trigger = parked()
    wait = EventWait.objects.get(trigger_id=trigger.pk)
    long_ago = timezone.now() - timedelta(days=1)
    EventWait.objects.filter(pk=wait.pk).update(deadline=long_ago)

    def swept():
        nudges: list = []
        work_sweep(replace(WAITS, enqueue_on_commit=nudges.extend))
        return [(n.wait_id, n.queue, n.priority) for n in nudges]

    assert swept() == [(wait.pk, trigger.workflow.queue, trigger.priority)]
    assert swept() == []  # nudged: not again at once
    EventWait.objects.filter(pk=wait.pk).update(
        lease_until=timezone.now() + timedelta(minutes=1), leased_by="other/1"
    )
    assert wait_time_out(wait_id=wait.pk, worker_id="w") is None  # another holds it
    EventWait.objects.filter(pk=wait.pk).update(lease_until=long_ago, nudged_at=None)
    assert swept() == [(wait.pk, trigger.workflow.queue, trigger.priority)]  # it died

    TriggerInstance.objects.filter(pk=trigger.pk).update(status="processing")  # a step runs
    assert wait_time_out(wait_id=wait.pk, worker_id="w") is None
    given_back = EventWait.objects.get(pk=wait.pk)
    assert (given_back.resolved_at, given_back.lease_until, given_back.nudged_at) == (
        None,
        None,
        None,
    )  # due, and the next sweep nudges it again
    TriggerInstance.objects.filter(pk=trigger.pk).update(status="waiting")
    with django_capture_on_commit_callbacks(execute=False) as published:
        assert wait_time_out(wait_id=wait.pk, worker_id="w") == RESUMED
    assert len(published) == 1  # the resumed run's nudge, after commit
    closed = EventWait.objects.get(pk=wait.pk)
    assert (closed.timed_out, closed.resolved_by, closed.leased_by) == (True, "timeout", "")
    assert TriggerInstance.objects.get(pk=trigger.pk).status == "enqueued"
