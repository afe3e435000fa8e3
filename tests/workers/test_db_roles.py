"""Least privilege (`manage.py setup_db_roles`): each process kind's role can do its job and
nothing that would rewrite history."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from django.db import connection, transaction
from django.db.models import F
from django.db.utils import ProgrammingError

from events.models import WebhookDelivery
from events.services.dispatcher import deliveries_sweep, delivery_send
from events.services.endpoints import endpoint_create
from notiflow.celery import app as celery_app
from tests.factories import WorkflowFactory, chain, delay_node, sms_node
from tests.support.stack import ROOT
from tests.support.waits import waits_time_out
from triggers.models import TriggerInstance
from triggers.sql import CLAIM_SQL
from triggers.steps import claim_params
from waits.models import EventWait
from workers.models import SendLedger, StepExecutionLog
from workers.services.engine import step_execute
from workers.services.roles import db_role_setup
from workers.services.sweeper import sweep

pytestmark = pytest.mark.django_db

AUDIT_TABLES = (
    "step_log",
    "trigger_event",
    "send_ledger",
    "trigger_instance",
    "outbox_event",
    "webhook_attempt",
)


def role_names() -> dict[str, str]:
    suffix = uuid.uuid4().hex[:8]
    return {kind: f"nf_test_{kind}_{suffix}" for kind in ("worker", "beat", "web")}


@contextmanager
def as_role(name: str) -> Iterator[None]:
    with connection.cursor() as cursor:
        cursor.execute(f'SET ROLE "{name}"')
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")


def denied(sql: str) -> None:
    with (
        pytest.raises(ProgrammingError, match=r"permission denied|must be owner"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)


@pytest.fixture
def roles() -> dict[str, str]:
    """The three roles, created inside the test's transaction (and so gone after it)."""
    names = role_names()
    for kind, name in names.items():
        db_role_setup(kind=kind, name=name, password=None, generate_password=False)
    return names


def test_web_and_worker_roles_run_a_trigger_end_to_end(roles, api_client, settings, receiver):
    settings.NOTIFLOW_SMS_BACKEND = "null"
    definition = chain(delay_node("wait", delay_ms=0), sms_node("text"))
    with as_role(roles["web"]):
        created = api_client.post(
            "/api/workflows/", {"key": "roles", "name": "Roles", **definition}, format="json"
        )
        assert created.status_code == 201, created.content
        endpoint = endpoint_create(url=receiver.url("/ok/roles"), events=["*"], workflows=["roles"])
        fired = api_client.post(
            "/api/triggers/",
            {
                "workflow": "roles",
                "idempotency_key": "k",
                "payload": {"phone": "+15550199", "name": "N"},
            },
            format="json",
        )
        assert fired.status_code == 201, fired.content
    trigger_id = fired.json()["id"]

    with as_role(roles["worker"]):
        assert step_execute(trigger_id=trigger_id, worker_id="w") == "enqueued"
    # now() is frozen at the start of the test's transaction: make the next node due by it.
    TriggerInstance.objects.filter(pk=trigger_id).update(available_at=F("created_at"))
    with as_role(roles["worker"]):
        assert step_execute(trigger_id=trigger_id, worker_id="w") == "completed"
        assert sweep() == []

        # The dispatcher, as the worker role: the run's two events reach the receiver.
        for delivery in WebhookDelivery.objects.filter(endpoint=endpoint):
            assert delivery_send(delivery.pk, worker_id="w") == "delivered"
        assert deliveries_sweep() == 0
    assert len(receiver.received("/ok/roles")) == 2

    assert TriggerInstance.objects.get(pk=trigger_id).status == "completed"
    assert SendLedger.objects.get(trigger_id=trigger_id).status == "sent"
    assert StepExecutionLog.objects.filter(trigger_id=trigger_id, success=True).count() == 2
    with as_role(roles["web"]):
        assert len(api_client.get(f"/api/triggers/{trigger_id}/logs/").json()) == 2


def test_no_role_can_delete_truncate_or_alter_history(roles, settings):
    for name in roles.values():
        with as_role(name):
            for table in AUDIT_TABLES:
                denied(f"DELETE FROM {table}")  # noqa: S608
                denied(f"TRUNCATE {table}")
                denied(f"ALTER TABLE {table} DISABLE TRIGGER USER")
    with as_role(roles["worker"]):
        denied("UPDATE step_log SET error = ''")
        denied("UPDATE trigger_event SET reason = ''")
        denied("SELECT * FROM api_key")
        denied("INSERT INTO workflows_workflowversion (workflow_id) VALUES (1)")
    with as_role(roles["beat"]):
        denied("SELECT * FROM trigger_instance")


def test_the_worker_writes_a_runs_history_only_through_the_claim_and_the_release(roles):
    """The claim and the release are SECURITY DEFINER functions (triggers migration 0013): the
    worker role steps runs through them (test above) and holds no INSERT or UPDATE of its own on
    the tables they write; no other role may call them."""
    with as_role(roles["worker"]):
        for table in ("step_log", "send_ledger", "outbox_event"):
            denied(f"INSERT INTO {table} (id) VALUES (1)")  # noqa: S608
        denied("UPDATE send_ledger SET status = 'sent'")
        denied("UPDATE send_ledger SET send_count = send_count + 1")
        denied("UPDATE outbox_event SET type = ''")
    calls = [
        "SELECT * FROM notiflow_claim_v3(gen_random_uuid(), 'w', 1, '{}')",
        "SELECT * FROM notiflow_release_v6(gen_random_uuid(), 'w', 'n', 'completed', NULL,"
        " '{}', 0, 0, false, '', true, '', NULL, NULL, NULL, NULL)",
        "SELECT * FROM notiflow_release_v3(gen_random_uuid(), 'w', 'n', 'completed', NULL,"
        " '{}', 0, 0, false, '', true, '', NULL, NULL, NULL, NULL)",
        # Versions 2 and 1 stay callable for the workers of earlier releases during a deploy.
        "SELECT * FROM notiflow_claim_v2(gen_random_uuid(), 'w', 1, '{}')",
        "SELECT * FROM notiflow_release_v2(gen_random_uuid(), 'w', 'n', 'completed', NULL,"
        " '{}', 0, now(), false, '', true, '', NULL, NULL, NULL, NULL)",
    ]
    for kind in ("web", "beat"):
        with as_role(roles[kind]):
            for call in calls:
                denied(call)
    with as_role(roles["worker"]), connection.cursor() as cursor:
        for call in calls:
            cursor.execute(call)
            assert cursor.fetchall() == []


def test_the_worker_changes_a_runs_status_only_through_the_state_machine(roles):
    """Every status change is a function of triggers' state machine: the claim and the release,
    and what a wait does to its run (triggers migration 0018: hold, resume, park). What the
    worker role keeps on trigger_instance, and why: UPDATE of `nudged_at` alone, the sweeper's
    record of the nudges it sent (common/leased_work.py), which changes no status. A fan-out's
    runs are made by the state machine's function too (triggers migration 0023), and a bulk
    action's cancel, retry and replay (0028): the worker inserts no run of its own."""
    with as_role(roles["worker"]):
        denied("INSERT INTO trigger_instance (id) VALUES (gen_random_uuid())")
        for column, value in (("status", "'completed'"), ("available_at", "now()")):
            denied(f"UPDATE trigger_instance SET {column} = {value}")  # noqa: S608
        with connection.cursor() as cursor:  # what is left passes the privilege checks
            cursor.execute("UPDATE trigger_instance SET nudged_at = NULL WHERE false")
    waits = [
        "SELECT * FROM notiflow_runs_hold_v1(ARRAY[gen_random_uuid()], true)",
        "SELECT * FROM notiflow_runs_resume_v1('[]')",
    ]
    park = "SELECT notiflow_run_park_v1(gen_random_uuid(), 'n', false, '')"
    # A workflow no one has: the function answers no row.
    fanout = (
        "SELECT * FROM notiflow_fanout_runs_insert_v1('nobody', '[]', '{}', 1, '', 'a', true, 30)"
    )
    # An operator's cancel and retry, and a bulk action's replay (triggers migration 0028).
    operator = [
        "SELECT * FROM notiflow_runs_cancel_v1(ARRAY[gen_random_uuid()], 'a', 'r', '[]')",
        "SELECT * FROM notiflow_run_retry_v1(gen_random_uuid(), 'a', 'r')",
    ]
    replay = "SELECT * FROM notiflow_run_replay_v1(gen_random_uuid(), 'k', 'a', 'r')"
    for kind, allowed, refused in (
        ("worker", [*waits, park, fanout, *operator, replay], []),
        # A posted event resumes its runs, the API and the admin cancel and retry; a step parks.
        ("web", [*waits, *operator], [park, fanout, replay]),
        ("beat", [], [*waits, park, fanout, *operator, replay]),
    ):
        with as_role(roles[kind]):
            for call in refused:
                denied(call)
            with connection.cursor() as cursor:
                for call in allowed:
                    cursor.execute(call)


def test_beat_role_runs_the_database_scheduler(roles, monkeypatch):
    from django_celery_beat import schedulers
    from django_celery_beat.models import PeriodicTask
    from django_celery_beat.schedulers import DatabaseScheduler

    # It closes stale connections between ticks, which would end this test's transaction.
    monkeypatch.setattr(schedulers, "close_old_connections", lambda: None)

    with as_role(roles["beat"]):
        scheduler = DatabaseScheduler(app=celery_app, lazy=False)
        assert "notiflow-sweeper" in scheduler.schedule
        scheduler.sync()
    assert PeriodicTask.objects.filter(name="notiflow-sweeper", task="workers.sweep").exists()
    assert PeriodicTask.objects.filter(task="workers.waits_sweep").exists()


@pytest.fixture
def committed_worker_role() -> Iterator[tuple[str, str]]:
    """A worker role created by the command in a subprocess (committed), dropped afterwards."""
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    name = role_names()["worker"]
    try:
        yield name, url
    finally:
        with psycopg.connect(url, autocommit=True) as owner:
            exists = owner.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [name]).fetchone()
            if exists:
                owner.execute(f'DROP OWNED BY "{name}"')
                owner.execute(f'DROP ROLE "{name}"')


def setup_db_roles(url: str, name: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "setup_db_roles", "--roles", "worker", "--worker-role", name],
        cwd=ROOT,
        env={
            **os.environ,
            "DATABASE_URL": url,
            "DJANGO_SETTINGS_MODULE": "notiflow.settings",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


@pytest.mark.slow  # a committed role's whole run, seconds
def test_worker_role_logs_in_works_and_is_refused_delete_and_truncate(committed_worker_role):
    name, url = committed_worker_role
    secret = uuid.uuid4().hex
    first = setup_db_roles(url, name, NOTIFLOW_DB_PASSWORD_WORKER=secret)
    again = setup_db_roles(url, name)
    assert "created" in first.stdout and "updated" in again.stdout
    assert secret not in first.stdout + first.stderr
    assert "password" not in again.stdout  # an existing role keeps its password, unprinted

    # Trust authentication on 127.0.0.1 (the test server); production uses the password.
    worker_url = url.replace(f"//{connection.settings_dict['USER']}@", f"//{name}:{secret}@")
    with psycopg.connect(worker_url, autocommit=True) as worker:
        assert worker.execute("SELECT current_user").fetchone() == (name,)
        # The worker's own statements pass the privilege checks (no row matches the random id).
        claim = claim_params(trigger_id=uuid.uuid4(), worker_id="w", lease_seconds=5)
        assert worker.execute(CLAIM_SQL, claim).fetchall() == []
        assert worker.execute("SELECT count(*) FROM workflows_workflowversion").fetchone()
        for statement in (
            "DELETE FROM step_log",
            "TRUNCATE step_log",
            "TRUNCATE trigger_instance CASCADE",
            "DELETE FROM trigger_event",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
                worker.execute(statement)


def test_web_and_worker_roles_run_a_fanout(roles, api_client):
    """The web role takes the topic, its subscribers and the fan-out in; the worker role makes
    the runs (intake in the workers: it inserts triggers) under the fan-out's lease, and its
    sweep runs."""
    from recipients.models import Fanout, Recipient
    from triggers.fanout import fanout_chunk
    from workers.tasks import fanouts_sweep

    Recipient.objects.bulk_create([Recipient(key=f"roles-{i}") for i in range(3)])
    with as_role(roles["web"]):
        definition = chain(delay_node("wait", delay_ms=0))
        workflow = {"key": "roles-fan", "name": "Roles", **definition}
        assert api_client.post("/api/workflows/", workflow, format="json").status_code == 201
        assert api_client.put("/api/topics/roles/", {}, format="json").status_code == 201
        people = {"recipients": ["roles-0", "roles-1", "roles-2"]}
        api_client.post("/api/topics/roles/subscribers/", people, format="json")
        fired = api_client.post(
            "/api/triggers/",
            {"workflow": "roles-fan", "idempotency_key": "k", "topic": "roles"},
            format="json",
        )
        assert fired.status_code == 202, fired.content
    fanout_id = fired.json()["fanout_id"]

    with as_role(roles["worker"]):
        assert fanout_chunk(fanout_id=fanout_id, worker_id="w") == 3
        fanouts_sweep()
    assert Fanout.objects.get(pk=fanout_id).status == "done"
    assert TriggerInstance.objects.filter(workflow__key="roles-fan").count() == 3


def test_web_and_worker_roles_run_a_charged_topic_schedule(roles, api_client, settings):
    """The web role stores a topic schedule; the worker role fires its occurrence, charged to
    the key that stored it (schedules/admission.py reads that key's `id` and `key_hash`, the
    only columns of `api_key` it may read)."""
    from common import throttling
    from recipients.models import Recipient
    from schedules.models import ScheduleOccurrence
    from tests.schedules.support import at, fire_at, place

    settings.NOTIFLOW_RATE_LIMIT_TRIGGER = "1000/s"
    throttling.FAIL_OPEN.until = 0.0
    Recipient.objects.bulk_create([Recipient(key=f"roles-s-{i}") for i in range(3)])
    with as_role(roles["web"]):
        definition = chain(delay_node("wait", delay_ms=0))
        workflow = {"key": "roles-sched", "name": "Roles", **definition}
        assert api_client.post("/api/workflows/", workflow, format="json").status_code == 201
        assert api_client.put("/api/topics/roles-s/", {}, format="json").status_code == 201
        people = {"recipients": ["roles-s-0", "roles-s-1", "roles-s-2"]}
        api_client.post("/api/topics/roles-s/subscribers/", people, format="json")
        stored = api_client.put(
            "/api/schedules/roles-s/",
            {
                "workflow": "roles-sched",
                "topic": "roles-s",
                "repeat": "FREQ=DAILY;BYHOUR=9;BYMINUTE=0",
                "timezone": "UTC",
                "starts_at": "2026-01-01T00:00:00",
            },
            format="json",
        )
        assert stored.status_code == 201, stored.content
    place("roles-s", at("2026-12-06T12:00"))

    with as_role(roles["worker"]):
        assert fire_at("roles-s", at("2026-12-07T09:00")) == [3]
        denied("SELECT name FROM api_key")
    record = ScheduleOccurrence.objects.get(schedule_id="roles-s")
    assert (record.status, record.runs, record.charged) == ("fired", 3, 3)


def test_web_and_worker_roles_run_waits(roles, api_client):
    """A wait_event run as the roles: the worker registers the wait and parks the run, the web
    posts the event that resumes it (and cancels another, closing its wait), the worker's sweep
    times a third out."""
    definition = {
        "entry_node_id": "hold",
        "nodes": [
            {
                "id": "hold",
                "type": "wait_event",
                "event": "order.paid",
                "match": {"order_id": "{{ payload.order_id }}"},
                "timeout": "1h",
                "lookback": "1h",
            },
            delay_node("after", delay_ms=0),
        ],
        "edges": [{"from": "hold", "to": "after"}],
    }
    with as_role(roles["web"]):
        created = api_client.post(
            "/api/workflows/", {"key": "waits", "name": "Waits", **definition}, format="json"
        )
        assert created.status_code == 201, created.content
        ids = [
            api_client.post(
                "/api/triggers/",
                {"workflow": "waits", "idempotency_key": order, "payload": {"order_id": order}},
                format="json",
            ).json()["id"]
            for order in ("paid", "cancelled", "late")
        ]
    paid, cancelled, late = ids
    with as_role(roles["worker"]):
        for trigger_id in ids:
            step_execute(trigger_id=trigger_id, worker_id="w")
    assert set(TriggerInstance.objects.filter(pk__in=ids).values_list("status", flat=True)) == {
        "waiting"
    }
    with as_role(roles["web"]):
        event = {"name": "order.paid", "id": "e1", "data": {"order_id": "paid"}}
        posted = api_client.post("/api/events/", event, format="json")
        assert (posted.status_code, posted.json()["resumed"]) == (201, 1), posted.content
        assert api_client.post(f"/api/triggers/{cancelled}/cancel/").status_code == 200
    EventWait.objects.filter(trigger_id=late).update(deadline=F("created_at"))
    with as_role(roles["worker"]):
        assert waits_time_out() == 1
    for trigger_id in (paid, late):
        TriggerInstance.objects.filter(pk=trigger_id).update(available_at=F("created_at"))
        with as_role(roles["worker"]):
            assert step_execute(trigger_id=trigger_id, worker_id="w") == "enqueued"
    assert EventWait.objects.get(trigger_id=cancelled).resolved_by == "cancelled"
    assert TriggerInstance.objects.get(pk=paid).vars["hold"]["received"] is True
    assert TriggerInstance.objects.get(pk=late).vars["hold"]["timed_out"] is True


def test_the_worker_role_carries_out_a_bulk_cancel_retry_and_replay(
    roles, api_client, django_capture_on_commit_callbacks
):
    """The web role asks for the actions over the API; a worker as the worker role does their
    chunks, each run changed by the state machine's functions (triggers migration 0028), with
    its event and, for the cancel, its `trigger.cancelled` in the outbox: nothing refused, every
    run where it should be. (The same with real processes: tests/triggers/test_actions_roles.py.)"""
    from events.models import OutboxEvent
    from tests.triggers.support import failed, new_trigger
    from triggers.actions import action_chunk, replay_key
    from triggers.models import TriggerAction, TriggerEvent

    workflow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=3_600_000)))
    endpoint_create(url="http://127.0.0.1:9/roles", events=["trigger.cancelled"])
    waiting = [new_trigger(workflow) for _ in range(2)]
    broken = [failed(new_trigger(workflow)) for _ in range(2)]
    done: dict[str, TriggerAction] = {}
    for kind, run_filter in (
        ("cancel", {"ids": [str(run.pk) for run in waiting]}),
        ("retry", {"ids": [str(run.pk) for run in broken]}),
        ("replay", {"ids": [str(run.pk) for run in broken]}),
    ):
        with as_role(roles["web"]):
            asked = api_client.post(
                "/api/triggers/actions/", {"action": kind, "filter": run_filter}, format="json"
            )
        assert asked.status_code == 202, asked.content
        with as_role(roles["worker"]), django_capture_on_commit_callbacks():
            assert action_chunk(action_id=asked.json()["action_id"], worker_id="w") == 2
        done[kind] = TriggerAction.objects.get(pk=asked.json()["action_id"])

    for action in done.values():
        assert (action.status, action.done, action.skipped, action.errors) == ("done", 2, 0, 0)
    for run in waiting:
        run.refresh_from_db()
        assert run.status == "cancelled" and run.completed_at is not None
        announced = OutboxEvent.objects.get(trigger_id=run.pk, type="trigger.cancelled")
        assert announced.data["trigger"]["status"] == "cancelled"
    for run in broken:
        run.refresh_from_db()
        assert (run.status, run.attempts, run.last_error) == ("enqueued", 0, "")
        replayed = TriggerInstance.objects.get(
            idempotency_key=replay_key(done["replay"].pk, run.pk)
        )
        assert (replayed.status, replayed.payload) == ("enqueued", run.payload)
        assert TriggerEvent.objects.filter(trigger=replayed, from_status="").count() == 1


def test_the_web_reads_the_funnel_and_the_worker_sweeps_it(roles):
    """The funnel's read (the rollup, the watermark and the steps past it) as the web role, its
    sweep as the worker role (deliveries migration 0008); neither writes funnel_count itself,
    and the web role cannot sweep."""
    from datetime import timedelta

    from django.utils import timezone

    from deliveries.funnel import funnel_counted, funnel_sweep

    workflow = WorkflowFactory(definition=chain(sms_node("text")))
    now = timezone.now()
    with as_role(roles["web"]):
        assert funnel_counted(workflow=workflow, start=now - timedelta(hours=1), end=now) == []
        denied("SELECT notiflow_funnel_sweep_v1()")
    with as_role(roles["worker"]):
        assert funnel_sweep() >= 0
        denied("INSERT INTO funnel_count (id) VALUES (1)")
        denied("UPDATE funnel_sweep SET swept_at = NULL")


def test_the_worker_makes_the_step_logs_partitions_ahead_and_drops_none(roles):
    """Beat's hourly task runs on a worker: its role makes the step log's partitions through
    their function (SECURITY DEFINER, workers migration 0014) but drops none; the web's cannot."""
    from workers.services.history import partitions_ensure, partitions_horizon

    later = datetime.now(UTC) + timedelta(days=30)
    with as_role(roles["web"]):
        denied("SELECT notiflow_step_log_partitions_v1(now() + interval '40 days', 1)")
    with as_role(roles["worker"]):
        made = partitions_ensure(now=later)
        assert made and partitions_horizon() >= later
        denied(f"DROP TABLE {made[-1]}")
        denied(f"SELECT notiflow_step_log_drop_v1('{made[-1]}', now() + interval '90 days')")
