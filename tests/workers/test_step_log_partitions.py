"""The step log partitioned by its run's creation (workers migration 0014, triggers 0029;
docs/reliability/index.md, "History by partition"): where a release's row lands, the partitions made
ahead, and retention dropping a partition whole once its runs are gone."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import UTC, timedelta

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from tests.support.databases import database_drop, database_from_template
from tests.support.stack import ROOT
from tests.workers.history import trigger_with_history
from triggers.models import TriggerInstance
from workers.models import StepExecutionLog
from workers.selectors import step_log_list
from workers.services.history import partitions_ensure, partitions_horizon

pytestmark = pytest.mark.django_db


def partition_of(step: StepExecutionLog) -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tableoid::regclass::text, run_created_at FROM step_log WHERE id = %s", [step.pk]
        )
        name, _ = cursor.fetchone()
    return name


def run_created_at(step: StepExecutionLog):
    with connection.cursor() as cursor:
        cursor.execute("SELECT run_created_at FROM step_log WHERE id = %s", [step.pk])
        return cursor.fetchone()[0]


def partitions() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT partition FROM notiflow_step_log_ranges_v1()")
        return {name for (name,) in cursor.fetchall()}


def day_partition(when) -> str:
    return "step_log_p" + when.astimezone(UTC).strftime("%Y%m%d")


def test_the_step_log_is_partitioned_by_its_runs_creation_the_old_table_its_default():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_partkeydef('step_log'::regclass),"
            " (SELECT c.relname FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partdefid"
            "  WHERE p.partrelid = 'step_log'::regclass)"
        )
        key, default = cursor.fetchone()
    assert key == "RANGE (run_created_at)"
    assert default == "step_log_legacy"
    # Made ahead: a week of days from today, as beat keeps them.
    assert {day_partition(timezone.now() + timedelta(days=n)) for n in range(7)} <= partitions()


def test_a_release_logs_the_step_in_its_runs_partition():
    trigger = trigger_with_history(status="completed")
    step = StepExecutionLog.objects.get(trigger_id=trigger.pk)

    assert run_created_at(step) == trigger.created_at
    assert partition_of(step) == day_partition(trigger.created_at)


def test_a_step_log_written_without_its_runs_time_goes_to_the_old_table():
    # As a release of the previous version (v5) writes it while workers of two versions run.
    trigger = trigger_with_history(status="completed")
    step = StepExecutionLog.objects.create(
        trigger_id=trigger.pk,
        workflow_id=trigger.workflow_id,
        node_id="other",
        node_type="sms",
        attempt=1,
        started_at=timezone.now(),
        finished_at=timezone.now(),
        input={},
        success=True,
    )
    assert partition_of(step) == "step_log_legacy"
    assert run_created_at(step) is None


def test_attempts_count_on_from_the_old_tables_rows_of_the_same_run():
    """A run whose first attempt a release of the previous version logged (in the old table)
    gets attempt 2 from version 6, in its partition: the unique (trigger, node, attempt) holds
    across the two."""

    def logged_before_the_upgrade(trigger: TriggerInstance) -> None:
        StepExecutionLog.objects.create(
            trigger_id=trigger.pk,
            workflow_id=trigger.workflow_id,
            node_id=trigger.current_node_id,
            node_type="sms",
            attempt=1,
            started_at=timezone.now(),
            finished_at=timezone.now(),
            input={},
            success=False,
            error="before the upgrade",
        )

    trigger = trigger_with_history(status="completed", before_step=logged_before_the_upgrade)
    latest = StepExecutionLog.objects.filter(trigger_id=trigger.pk).order_by("attempt").last()
    assert latest is not None
    assert latest.attempt == 2
    assert partition_of(latest) == day_partition(trigger.created_at)


def test_partitions_are_made_ahead_once():
    now = timezone.now()
    horizon = partitions_horizon()
    assert horizon >= now + timedelta(days=6)

    made = partitions_ensure(now=now + timedelta(days=20))

    # Each table's, a day each from where its last one ended, up to the same day.
    for table in ("step_log", "trigger_event"):
        days = [name.removeprefix(f"{table}_p") for name in made if name.startswith(f"{table}_p")]
        assert days == [
            day_partition(horizon + timedelta(days=n)).removeprefix("step_log_p")
            for n in range(len(days))
        ]
        assert len(days) >= 13
    assert partitions_horizon() >= now + timedelta(days=27)
    assert partitions_ensure(now=now + timedelta(days=20)) == []


class Installation:
    """A database of its own (a copy of the template), migrated by `manage.py migrate` in a
    process of its own, as an installation is upgraded and taken back."""

    def __init__(self, suffix: str):
        db = settings.DATABASES["default"]
        self.name = f"{db['NAME']}_{suffix}"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "notiflow.settings",
            "DJANGO_DEBUG": "1",
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{self.name}",
        }

    def __enter__(self) -> Installation:
        database_from_template(self.name)
        return self

    def __exit__(self, *exc: object) -> None:
        database_drop(self.name)

    def migrate(self, *target: str) -> None:
        subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), "migrate", "-v0", *target],
            env=self.env,
            check=True,
            timeout=120,
        )

    def sql(self, statement: str, *, triggers_off: bool = False) -> list[tuple]:
        """`triggers_off`: no foreign key checked (a row of no run, where the table before has
        one) and no append-only guard."""
        with psycopg.connect(self.env["DATABASE_URL"], autocommit=True) as conn:
            if triggers_off:
                conn.execute("SET session_replication_role = replica")
            cursor = conn.execute(statement)
            return cursor.fetchall() if cursor.description else []


@pytest.mark.slow  # migrates backwards and forwards, in processes of its own
def test_the_migration_converts_an_installation_and_back_without_losing_a_row():
    """workers 0014 on a database with step logs: back to an unpartitioned table and forward
    again, every row kept, ids continuing."""
    insert = (
        "INSERT INTO step_log (trigger_id, workflow_id, node_id, node_type, attempt, started_at,"
        " finished_at, input, success, error{column}) SELECT gen_random_uuid(), w.id, 'n', 'sms',"
        " 1, now(), now(), '{{}}', true, ''{value} FROM workflows_workflow w RETURNING id"
    )
    with Installation("partitioning") as db:
        db.sql(
            "INSERT INTO workflows_workflow (key, name, description, active, created_at,"
            " updated_at, queue) VALUES ('w', 'w', '', true, now(), now(), 'default')"
        )
        (legacy_id,) = db.sql(insert.format(column="", value=""))[0]
        (partitioned_id,) = db.sql(insert.format(column=", run_created_at", value=", now()"))[0]
        db.migrate("workers", "0013")
        assert db.sql("SELECT relkind FROM pg_class WHERE relname = 'step_log'") == [("r",)]
        assert db.sql("SELECT id FROM step_log ORDER BY id") == [(legacy_id,), (partitioned_id,)]
        (before_id,) = db.sql(insert.format(column="", value=""), triggers_off=True)[0]
        assert before_id > partitioned_id

        db.migrate()
        assert db.sql("SELECT relkind FROM pg_class WHERE relname = 'step_log'") == [("p",)]
        rows = db.sql("SELECT id, tableoid::regclass::text FROM step_log ORDER BY id")
        assert rows == [
            (legacy_id, "step_log_legacy"),
            (partitioned_id, "step_log_legacy"),
            (before_id, "step_log_legacy"),
        ]
        (after_id,) = db.sql(insert.format(column=", run_created_at", value=", now()"))[0]
        assert after_id > before_id


@pytest.mark.slow  # migrates backwards and forwards, in processes of its own
def test_the_event_migration_converts_an_installation_and_back_without_losing_a_row():
    """triggers 0030 on a database with run events: back to an unpartitioned table and forward
    again, every row kept, ids continuing."""
    insert = (
        "INSERT INTO trigger_event (trigger_id, from_status, to_status, reason, actor, created_at)"
        " VALUES (gen_random_uuid(), '', 'enqueued', 't', 't', {at}) RETURNING id"
    )
    # The first range partition's day (the CHECK's bound), in the future.
    first = "(SELECT min(lower_bound) FROM notiflow_trigger_event_ranges_v1())"
    with Installation("event_partitioning") as db:
        (legacy_id,) = db.sql(insert.format(at="now()"))[0]
        (partitioned_id,) = db.sql(insert.format(at=f"{first} + interval '1 hour'"))[0]
        ((first_partition,),) = db.sql(
            "SELECT partition FROM notiflow_trigger_event_ranges_v1() ORDER BY 1 LIMIT 1"
        )
        assert db.sql("SELECT tableoid::regclass::text FROM trigger_event ORDER BY id") == [
            ("trigger_event_legacy",),
            (first_partition,),
        ]
        db.migrate("triggers", "0029")
        assert db.sql("SELECT relkind FROM pg_class WHERE relname = 'trigger_event'") == [("r",)]
        ids = db.sql("SELECT id FROM trigger_event ORDER BY id")
        assert ids == [(legacy_id,), (partitioned_id,)]
        (before_id,) = db.sql(insert.format(at="now()"), triggers_off=True)[0]
        assert before_id > partitioned_id
        # An event from the future cannot be: the CHECK forward would refuse it.
        db.sql("DELETE FROM trigger_event WHERE created_at > now()", triggers_off=True)

        db.migrate()
        assert db.sql("SELECT relkind FROM pg_class WHERE relname = 'trigger_event'") == [("p",)]
        rows = db.sql("SELECT id, tableoid::regclass::text FROM trigger_event ORDER BY id")
        assert rows == [(legacy_id, "trigger_event_legacy"), (before_id, "trigger_event_legacy")]
        (after_id,) = db.sql(insert.format(at=f"{first} + interval '1 hour'"))[0]
        assert after_id > before_id
        ((table,),) = db.sql(
            "SELECT tableoid::regclass::text FROM trigger_event ORDER BY id DESC LIMIT 1"
        )
        assert table.startswith("trigger_event_p")


def test_a_runs_step_logs_are_read_from_its_partition_and_the_old_table_only():
    """The API's read of a run's step logs (GET /api/triggers/<id>/logs/) prunes to two
    partitions; without the run's creation it would read every one."""
    trigger = trigger_with_history(status="completed")

    def scanned(logs) -> set[str]:
        # The tables read (a bitmap index scan names its index, the heap scan its table).
        pattern = r"(?:Heap Scan|Seq Scan|Scan using \S+) on (step_log_\w+)"
        return set(re.findall(pattern, logs.explain()))

    pruned = scanned(step_log_list(trigger_id=trigger.pk, run_created_at=trigger.created_at))
    assert pruned == {day_partition(trigger.created_at), "step_log_legacy"}
    assert len(scanned(step_log_list(trigger_id=trigger.pk))) >= 8
