"""Every hot-path statement as PostgreSQL receives it, compared with its snapshot under
tests/snapshots/ (issue 32 §2): intake's insert-or-return (one request, many, and the key's
existing trigger), the claim and the release (one call each, whatever the step writes: a step
log alone, with the send ledger, giving the send slot back, with events), the suppression
lookup, the read of a run's recipient (with its preferences), the two sweeps of runs, a webhook
delivery's claim and finish, the two sweeps of deliveries; and the database functions the claim
and the release call, as PostgreSQL holds them (pg_get_functiondef), one snapshot each
(`function_<name>.sql`).

The statements are captured at execution, as the real services run them, through Django's
execute wrappers (common/db.py keeps them for the prepared statements), and converted as
psycopg converts them for the server (`$1` placeholders); for the prepared ones the test also
checks that PostgreSQL holds that very text in pg_prepared_statements. A statement bound on the
client (Django's cursor: the sweeps) reaches PostgreSQL with each `%(name)s` replaced by its
literal value: its snapshot keeps the placeholders, and says so on its first line.

A change to one of these statements shows here as a diff to review. To accept it, regenerate
the snapshots and commit them with the change:

    NOTIFLOW_SNAPSHOT_UPDATE=1 python -m pytest tests/test_sql_snapshots.py

Over 500 lines: one short case per pinned statement or function, and the capture they share;
the list of what is pinned is the file, read in one place (split by app, a reviewer would have
to gather it again).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone
from psycopg._queries import PostgresQuery  # the converter psycopg itself sends with
from psycopg.adapt import Transformer

from common import leased_work
from common.leased_work import work_sweep
from events.services.dispatcher import deliveries_sweep, delivery_send
from events.services.endpoints import endpoint_ping
from recipients.models import Recipient, Topic, TopicSubscription
from recipients.services import Profile
from tests.events.support import endpoint_on
from tests.factories import WorkflowFactory, chain, delay_node, email_node, sms_node
from tests.support.functions import function_definition, installed_functions
from triggers.action_work import ACTIONS
from triggers.actions import ActionFilter, action_chunk, action_start
from triggers.fanout import FanoutRequest, fanout_chunk, fanout_start
from triggers.fanout_work import FANOUTS
from triggers.models import TriggerInstance
from triggers.services import TriggerRequest, trigger_create, triggers_create
from waits.models import EventWait
from waits.services import event_receive, wait_time_out
from waits.work import WAITS
from workers.services import sweeper
from workers.services.engine import step_execute

pytestmark = [pytest.mark.django_db]

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("NOTIFLOW_SNAPSHOT_UPDATE") == "1"
CLIENT_BOUND = "-- bound on the client: each %(name)s reaches PostgreSQL as its literal value\n"
PAYLOAD = {"email": "ada@example.com", "name": "Ada", "phone": "+15550199"}


class Sent:
    """A statement as it went to PostgreSQL."""

    def __init__(self, sql: str, params: Any, cursor: Any):
        self.prepared = not isinstance(cursor, psycopg.ClientCursor)
        if self.prepared:
            query = PostgresQuery(Transformer(cursor.connection))
            query.convert(sql, params)
            self.text = query.query.decode()
        else:
            self.text = sql
        self.snapshot = ("" if self.prepared else CLIENT_BOUND) + self.text.strip() + "\n"


@contextmanager
def sent() -> Iterator[list[Sent]]:
    """The statements run inside the block, but for its savepoints."""
    statements: list[Sent] = []

    def capture(execute, sql, params, many, context):
        cursor = context["cursor"]
        statements.append(Sent(sql, params, getattr(cursor, "cursor", cursor)))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        yield statements
    statements[:] = [s for s in statements if "SAVEPOINT" not in s.text.split(None, 2)[:2]]


@pytest.fixture(autouse=True)
def quiet_broker(monkeypatch):
    monkeypatch.setattr(leased_work, "nudges_waiting", lambda queues: 0)
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        yield


def raw(statements: list[Sent]) -> list[Sent]:
    """The statements written by hand, without those the ORM built (its quoted names)."""
    return [s for s in statements if '"' not in s.text]


def trigger_of(workflow, key: str, **fields: Any) -> TriggerInstance:
    version = workflow.current_version
    return TriggerInstance.objects.create(
        workflow=workflow,
        workflow_version=version,
        idempotency_key=key,
        payload=PAYLOAD,
        current_node_id=version.definition["entry_node_id"],
        **{"status": "enqueued", "available_at": timezone.now() - timedelta(days=1), **fields},
    )


def warm(*nodes: dict) -> Any:
    """A workflow of `nodes` whose version this process has compiled (its load is not a hot
    statement: it is cached)."""
    workflow = WorkflowFactory(definition=chain(*nodes))
    step_execute(trigger_id=str(trigger_of(workflow, "warm").pk), worker_id="w")
    return workflow


def step(trigger: TriggerInstance) -> Callable[[], Any]:
    def run() -> Any:
        return step_execute(trigger_id=str(trigger.pk), worker_id="w")

    return run


def assert_snapshots(named: list[str], statements: list[Sent]) -> None:
    assert len(statements) == len(named), (
        f"expected {named}, got {len(statements)} statements:\n"
        + "\n".join(" ".join(s.text.split())[:200] for s in statements)
    )
    changed = []
    for name, statement in zip(named, statements, strict=True):
        path = SNAPSHOTS / f"{name}.sql"
        if UPDATE:
            SNAPSHOTS.mkdir(exist_ok=True)
            path.write_text(statement.snapshot)
        elif not path.exists() or path.read_text() != statement.snapshot:
            changed.append(name)
    assert not changed, (
        f"statements differ from tests/snapshots/: {changed}. Review the diff "
        "(NOTIFLOW_SNAPSHOT_UPDATE=1 rewrites them, then `git diff tests/snapshots`)."
    )
    prepared = [s.text for s in statements if s.prepared]
    if prepared and connection.connection.prepare_threshold is not None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            held = {row[0] for row in cursor.fetchall()}
        assert set(prepared) <= held, "a prepared statement differs from the text PostgreSQL holds"


def test_intake_of_one_request_and_of_its_key_again():
    workflow = WorkflowFactory(definition=chain(email_node("mail")))
    with sent() as statements:
        trigger_create(workflow_key=workflow.key, idempotency_key="a", payload=PAYLOAD)
    assert_snapshots(["intake"], statements)
    with sent() as statements:
        trigger_create(workflow_key=workflow.key, idempotency_key="a", payload=PAYLOAD)
    assert_snapshots(["intake", "intake_existing"], statements)


def test_intake_of_many_requests_and_of_their_keys_again():
    workflow = WorkflowFactory(definition=chain(email_node("mail")))
    requests = [TriggerRequest(workflow.key, key, PAYLOAD, None, "") for key in ("a", "b")]
    with sent() as statements:
        triggers_create(requests)
    assert_snapshots(["intake_many"], statements)
    with sent() as statements:
        triggers_create(requests)
    assert_snapshots(["intake_many", "intake_existing_many"], statements)


def test_a_send_step_claims_and_releases_with_the_ledger():
    """The suppression check is made against the list this process holds as of the claim's
    generation of it (deliveries/suppression.py): the warm-up's step read it."""
    trigger = trigger_of(warm(email_node("mail"), sms_node("text")), "k")
    with sent() as statements:
        step(trigger)()
    assert_snapshots(["claim", "release"], statements)


def test_a_send_step_reads_the_suppression_list_when_it_changed_or_asks_when_it_is_long(
    monkeypatch,
):
    from deliveries.suppression import SUPPRESSIONS, suppression_add

    workflow = warm(email_node("mail"), sms_node("text"))
    suppression_add(channel="email", recipient="a@example.com", reason="manual")
    trigger = trigger_of(workflow, "k1")
    with sent() as statements:
        step(trigger)()
    assert_snapshots(["claim", "suppression_list", "release"], statements)
    monkeypatch.setattr(SUPPRESSIONS, "limit", 0)
    suppression_add(channel="email", recipient="b@example.com", reason="manual")
    trigger = trigger_of(workflow, "k2")
    with sent() as statements:
        step(trigger)()
    assert_snapshots(["claim", "suppression_list", "suppression", "release"], statements)


def test_intake_naming_recipients_upserts_one_and_checks_the_other():
    workflow = WorkflowFactory(definition=chain(email_node("mail")))
    Recipient.objects.create(key="snap-bo")
    requests = [
        TriggerRequest(
            workflow.key, "a", PAYLOAD, recipient="snap-ada", profile=Profile("snap-ada", {})
        ),
        TriggerRequest(workflow.key, "b", PAYLOAD, recipient="snap-bo"),
    ]
    with sent() as statements:
        triggers_create(requests)
    assert_snapshots(["recipient_upsert_merge", "recipient_keys", "intake_many"], statements)


def test_intake_for_a_key_limited_to_workflows_creates_or_compares_in_the_upserts_place():
    workflow = WorkflowFactory(definition=chain(email_node("mail")))
    Recipient.objects.create(key="snap-bo")
    requests = [
        TriggerRequest(
            workflow.key, "a", PAYLOAD, recipient="snap-ada", profile=Profile("snap-ada", {})
        ),
        TriggerRequest(workflow.key, "b", PAYLOAD, recipient="snap-bo"),
    ]
    with sent() as statements:
        triggers_create(requests, key_workflows=[str(workflow.key)])
    assert_snapshots(["recipient_create_or_compare", "recipient_keys", "intake_many"], statements)


def test_a_send_step_for_a_recipient_reads_it_with_its_preferences_first():
    workflow = warm(email_node("mail", to=""), sms_node("text"))
    Recipient.objects.create(
        key="snap-ada", email="ada@example.com", preferences={"channels": {"sms": False}}
    )
    step(trigger_of(workflow, "k0", recipient="snap-ada"))()  # the suppression list, read
    trigger = trigger_of(workflow, "k", recipient="snap-ada")
    with sent() as statements:
        step(trigger)()
    assert_snapshots(["claim", "recipient_for_run", "release"], statements)


def test_a_send_step_for_a_recipient_of_a_tenant_reads_their_preferences_for_it_too(monkeypatch):
    from tenants.selectors import TENANTS
    from tenants.services import tenant_put

    tenant_put(tenant_id="snap-acme", fields={"name": "Acme"})
    workflow = warm(email_node("mail", to=""), sms_node("text"))
    Recipient.objects.create(key="snap-ada", email="ada@example.com")
    step(trigger_of(workflow, "k0", recipient="snap-ada", tenant="snap-acme"))()
    TENANTS.value()
    monkeypatch.setattr(TENANTS, "_recheck", 3600.0)  # the copy warm: no check in the step
    trigger = trigger_of(workflow, "k", recipient="snap-ada", tenant="snap-acme")
    with sent() as statements:
        step(trigger)()
    assert_snapshots(["claim", "recipient_for_tenant_run", "release"], statements)
    TENANTS.forget()


def test_a_send_whose_template_fails_gives_its_slot_back():
    bad = email_node("mail", subject="{{ payload.no_such_field }}")  # strict: fails to render
    trigger = trigger_of(warm(bad, sms_node("text")), "k")
    with sent() as statements:
        step(trigger)()
    assert_snapshots(["claim", "release"], statements)


def test_a_delay_step_releases_with_its_log_alone():
    trigger = trigger_of(warm(delay_node(), sms_node("text")), "k")
    with sent() as statements:
        step(trigger)()
    assert_snapshots(["claim", "release"], statements)


def test_a_last_step_with_a_subscriber_releases_with_its_events(receiver):
    endpoint_on(receiver)
    trigger = trigger_of(warm(delay_node()), "k")
    with sent() as statements:
        step(trigger)()
    assert_snapshots(["claim", "release"], statements)


def test_the_sweeps():
    workflow = WorkflowFactory(definition=chain(delay_node()))
    trigger_of(workflow, "due")
    trigger_of(
        workflow, "expired", status="processing", lease_until=timezone.now() - timedelta(days=1)
    )
    with sent() as statements:
        sweeper.sweep()
    assert_snapshots(["sweep_expired", "sweep_due"], statements)


def test_a_webhook_delivery_claims_and_finishes_and_the_deliveries_sweeps(receiver):
    endpoint, _ = endpoint_on(receiver)
    delivery = endpoint_ping(endpoint).deliveries.get()
    with sent() as statements:
        delivery_send(delivery.pk, worker_id="w")
    assert_snapshots(["delivery_claim", "delivery_finish"], statements)
    with sent() as statements:
        deliveries_sweep()
    assert_snapshots(["deliveries_sweep_expired", "deliveries_sweep_due"], statements)


def test_the_fanouts_claim_chunk_release_and_sweeps():
    """A fan-out's chunk as leased work (triggers/fanout_work.py): its claim, its lock under the
    lease, the chunk's subscribers, its runs in one statement (FANOUT_INTAKE_SQL), its fenced
    release; then the fan-outs' two sweeps."""
    workflow = WorkflowFactory(definition=chain(delay_node()))
    topic = Topic.objects.create(key="snap-topic")
    Recipient.objects.create(key="snap-ada")
    TopicSubscription.objects.create(topic=topic, recipient_id="snap-ada")
    fanout, _ = fanout_start(FanoutRequest(workflow.key, "snap", topic.key, PAYLOAD))
    with sent() as statements:
        fanout_chunk(fanout_id=fanout.pk, worker_id="w")
    assert_snapshots(
        ["fanout_claim", "fanout_lock", "fanout_subscribers", "fanout_intake", "fanout_release"],
        statements,
    )
    with sent() as statements:
        work_sweep(FANOUTS)
    assert_snapshots(["fanouts_sweep_expired", "fanouts_sweep_due"], statements)


def test_a_bulk_actions_claim_chunk_release_and_sweeps():
    """A bulk action's chunk as leased work (triggers/action_work.py): its claim, its lock under
    the lease, the chunk's runs locked, each replayed (run_replay.sql), its fenced release; then
    the actions' two sweeps."""
    workflow = WorkflowFactory(definition=chain(delay_node()))
    run, _ = trigger_create(workflow_key=workflow.key, idempotency_key="snap", payload=PAYLOAD)
    action, _ = action_start(kind="replay", run_filter=ActionFilter(ids=(run.pk,)), actor="snap")
    with sent() as statements:
        action_chunk(action_id=action.pk, worker_id="w")
    assert_snapshots(
        [
            "action_claim",
            "action_lock",
            "action_chunk_ids",
            "action_runs_lock",
            "run_replay",
            "action_release",
        ],
        statements,
    )
    with sent() as statements:
        work_sweep(ACTIONS)
    assert_snapshots(["actions_sweep_expired", "actions_sweep_due"], statements)


def test_a_bulk_cancel_and_retry_call_the_state_machines_functions():
    """A bulk action's cancel and retry, as their chunks run them: each run changed by the state
    machine's function (triggers migration 0028; their bodies: the functions' snapshots), the
    cancel's runs locked first (through the ORM, left out here) and its waits closed by its hook
    (waits/sql.py)."""
    from tests.triggers.support import failed

    workflow = WorkflowFactory(definition=chain(delay_node()))
    waiting, _ = trigger_create(workflow_key=workflow.key, idempotency_key="w", payload=PAYLOAD)
    broken = failed(
        trigger_create(workflow_key=workflow.key, idempotency_key="f", payload=PAYLOAD)[0]
    )
    for kind, run, named in (
        ("cancel", waiting, "runs_cancel"),
        ("retry", broken, "run_retry"),
    ):
        action, _ = action_start(kind=kind, run_filter=ActionFilter(ids=(run.pk,)), actor="snap")
        with sent() as statements:
            action_chunk(action_id=action.pk, worker_id="w")
        statements[:] = raw(statements)[2:]  # after the claim and the chunk's ids
        hook = ["waits_cancel"] if kind == "cancel" else []
        assert_snapshots([named, *hook, "action_release"], statements)


def test_a_waits_statements_from_its_registration_to_its_timeout():
    """A wait_event step's own statements (waits/sql.py: registered, looked back, expired if
    due, read; parked with the release), an event's (stored, its shapes read, the runs it
    resumes), the waits' sweeps and a timeout under its lease (claim, time out)."""
    from tests.waits.test_wait_event import PAYLOAD as WAIT_PAYLOAD
    from tests.waits.test_wait_event import definition
    from tests.workers.helpers import due_trigger

    warm_run = due_trigger(definition(), payload=WAIT_PAYLOAD)
    step_execute(trigger_id=str(warm_run.pk), worker_id="w")
    run = due_trigger(definition(), payload=WAIT_PAYLOAD)
    with sent() as statements:
        step_execute(trigger_id=str(run.pk), worker_id="w")
    statements[:] = raw(statements)  # the new workflow's version, loaded through the ORM
    assert_snapshots(
        [
            "claim",
            "wait_register",
            "wait_lookback",
            "wait_expire",
            "wait_read",
            "release",
            "wait_park",
        ],
        statements,
    )
    with sent() as statements:
        event_receive(name="order.paid", event_id="snap", data={"order_id": "none"}, actor="t")
    assert_snapshots(["event_store", "wait_shapes", "waits_resume"], statements)
    EventWait.objects.filter(trigger_id=warm_run.pk).update(
        deadline=timezone.now() - timedelta(days=1)
    )
    nudges: list = []
    with sent() as statements:
        work_sweep(replace(WAITS, enqueue_on_commit=nudges.extend))
    assert_snapshots(["waits_sweep_expired", "waits_sweep_due"], statements)
    with sent() as statements:
        wait_time_out(wait_id=nudges[0].wait_id, worker_id="w")
    assert_snapshots(["wait_claim", "wait_time_out"], statements)


def test_the_purges_and_their_dry_runs():
    """Each purge is one call of its database function a batch (their bodies: the functions'
    snapshots), and each dry run counts with the predicate the function calls."""
    from waits.services import events_purge
    from workers.services.retention import (
        retention_purge,
        retention_purge_deleted,
        retention_purge_events,
    )

    # A cutoff before every partition's end, so none is dropped (no drop statements) whatever
    # the day the test database's template was made, and its partitions with it.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT least((SELECT min(upper_bound) FROM notiflow_step_log_ranges_v1()),"
            " (SELECT min(upper_bound) FROM notiflow_trigger_event_ranges_v1()))"
        )
        (earliest_end,) = cursor.fetchone()
    older_than = timezone.now() - earliest_end + timedelta(days=1)
    with sent() as statements:
        retention_purge(older_than=older_than)
        retention_purge_deleted(older_than=timedelta(days=1))
        retention_purge_events(older_than=timedelta(days=1))
    assert_snapshots(
        [
            "step_log_dropping_below",
            "trigger_event_dropping_below",
            "purge_finished",
            "step_log_droppable",
            "trigger_event_droppable",
            "purge_deleted",
            "purge_events",
        ],
        statements,
    )
    with sent() as statements:
        events_purge(older_than=timedelta(days=1))
    statements[:] = raw(statements)  # the longest lookback, read through the ORM
    assert_snapshots(["cutoff", "received_events_purge", "cutoff", "waits_purge"], statements)


def test_every_database_function_as_installed():
    """Every function the migrations leave, its body as PostgreSQL holds it, one snapshot each:
    a change shows here (and is a new `_v<n>` in a new migration, with its own snapshot), and a
    function no migration keeps any more has no snapshot left (claim and release version 1)."""
    names = installed_functions()
    assert "notiflow_claim_v2" in names and "notiflow_claim_v1" not in names
    changed = []
    for name in names:
        path = SNAPSHOTS / f"function_{name}.sql"
        text = function_definition(name).strip() + "\n"
        if UPDATE:
            path.write_text(text)
        elif not path.exists() or path.read_text() != text:
            changed.append(name)
    assert not changed, f"functions differ from tests/snapshots/: {changed}"
    kept = {p.stem.removeprefix("function_") for p in SNAPSHOTS.glob("function_*.sql")}
    assert kept == set(names), f"snapshots of no installed function: {sorted(kept - set(names))}"


def test_every_snapshot_is_of_a_statement_checked_here():
    source = Path(__file__).read_text()
    named = [p for p in SNAPSHOTS.glob("*.sql") if not p.stem.startswith("function_")]
    orphans = [p.name for p in named if f'"{p.stem}"' not in source]
    assert orphans == [], f"snapshots of no statement: {orphans} (remove them)"


def test_a_schedules_step_and_sweeps():
    """A schedule's step as leased work (schedules/firing.py): its claim, its lock under the
    lease, its audience's chunk, its runs through the fan-out's insert (FANOUT_INTAKE_SQL), the
    occurrence recorded, its fenced release; then the schedules' two sweeps."""
    from schedules.firing import schedule_fire
    from schedules.models import Schedule
    from schedules.services import ScheduleRequest, schedule_put
    from schedules.work import SCHEDULES
    from tests.schedules.support import place

    workflow = WorkflowFactory(definition=chain(delay_node()))
    Recipient.objects.create(key="snap-ada")
    schedule, _ = schedule_put(
        ScheduleRequest(
            id="snap",
            workflow=workflow.key,
            recipients=["snap-ada"],
            repeat="FREQ=MINUTELY",
            timezone="UTC",
            starts_at="2026-01-01T00:00:00",
        )
    )
    place(schedule.pk, schedule.fires_from - timedelta(minutes=2))
    Schedule.objects.filter(pk=schedule.pk).update(
        available_at=timezone.now() - timedelta(seconds=1)
    )
    with sent() as statements:
        assert schedule_fire(schedule_id=schedule.pk, worker_id="w") == 1
    assert_snapshots(
        [
            "schedule_claim",
            "schedule_lock",
            "schedule_chunk",
            "schedule_intake",
            "schedule_record",
            "schedule_release",
            "schedule_route",
        ],
        statements,
    )
    with sent() as statements:
        work_sweep(SCHEDULES)
    assert_snapshots(["schedules_sweep_expired", "schedules_sweep_due"], statements)
