"""Retention with the step log's partitions (workers migration 0014; docs/reliability/index.md,
"Step logs by partition"): a partition dropped whole once its runs are gone, kept while one is
left. Each test on a database of its own (a copy of the template), committed as the workers and
purge_logs commit: a purge reads the whole database, and other tests commit runs of their own
into the test database."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from io import StringIO
from unittest import mock

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from tests.support.databases import database_drop, database_from_template
from tests.workers.history import trigger_with_history
from tests.workers.test_step_log_partitions import day_partition, partitions
from triggers.models import TriggerInstance
from workers.models import StepExecutionLog
from workers.services.history import step_log_partitions_ensure
from workers.services.retention import retention_purge


@pytest.fixture(autouse=True)
def own_database(django_db_setup, django_db_blocker) -> Iterator[None]:
    name = f"{connection.settings_dict['NAME']}_retention"
    database_from_template(name)
    with django_db_blocker.unblock():
        before = connection.settings_dict["NAME"]
        connection.close()
        connection.settings_dict["NAME"] = name
        try:
            yield
        finally:
            connection.close()
            connection.settings_dict["NAME"] = before
    database_drop(name)


# A day ahead of today's: its partition holds only what a test puts there.
AHEAD = timedelta(days=3)


def test_purge_drops_a_partition_whole_once_its_runs_are_gone():
    step_log_partitions_ensure(now=timezone.now() + timedelta(days=14))
    trigger = trigger_with_history(status="completed", created_at=timezone.now() + AHEAD)
    partition = day_partition(trigger.created_at)
    rows = StepExecutionLog.objects.filter(trigger_id=trigger.pk).count()
    assert rows == 1 and partition in partitions()

    # Forty days on, with a 30-day retention: that day is past the cutoff.
    report = retention_purge(
        older_than=timedelta(days=30), now=trigger.created_at + timedelta(days=40)
    )

    assert not TriggerInstance.objects.filter(pk=trigger.pk).exists()
    assert partition not in partitions()
    assert {d.partition: d.rows for d in report.partitions}[partition] == rows
    assert report.deleted["step_log"] >= rows
    # Never a partition whose range is not wholly past the cutoff.
    assert day_partition(trigger.created_at + timedelta(days=11)) in partitions()


def test_a_run_left_in_a_partition_keeps_it_and_the_others_logs_go_row_by_row():
    purged = trigger_with_history(status="completed", created_at=timezone.now() + AHEAD)
    waiting = trigger_with_history(status="processing", created_at=purged.created_at)
    partition = day_partition(purged.created_at)

    report = retention_purge(
        older_than=timedelta(days=30), now=purged.created_at + timedelta(days=40)
    )

    assert partition in partitions()
    assert partition not in {d.partition for d in report.partitions}
    assert not StepExecutionLog.objects.filter(trigger_id=purged.pk).exists()
    assert not TriggerInstance.objects.filter(pk=purged.pk).exists()
    assert TriggerInstance.objects.filter(pk=waiting.pk).exists()


def test_purge_logs_names_the_partitions_it_dropped():
    trigger = trigger_with_history(status="completed", created_at=timezone.now() + AHEAD)
    out = StringIO()
    with mock.patch(
        "django.utils.timezone.now", return_value=trigger.created_at + timedelta(days=40)
    ):
        call_command("purge_logs", "--older-than", "30d", stdout=out)
    text = out.getvalue()
    assert "step log partitions dropped (their rows): " in text
    assert f" {day_partition(trigger.created_at)} 1" in text
    assert "Deleted (finished before" in text


def test_a_partition_busy_with_a_reader_is_kept_for_the_next_purge(caplog):
    """The drop waits LOCK_TIMEOUT for the step log's lock behind a long reader, then leaves
    the partition for the next purge: never a queue of the workers' step logs behind it."""
    trigger = trigger_with_history(status="completed", created_at=timezone.now() + AHEAD)
    partition = day_partition(trigger.created_at)
    later = trigger.created_at + timedelta(days=40)
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    with psycopg.connect(url) as reader:
        reader.execute("SELECT count(*) FROM step_log")  # its transaction stays open
        report = retention_purge(older_than=timedelta(days=30), now=later)
    assert partition in partitions()
    assert partition not in {d.partition for d in report.partitions}
    assert "kept for the next purge" in caplog.text
    assert partition in caplog.text.split("kept for the next purge")[0]

    report = retention_purge(older_than=timedelta(days=30), now=later)
    assert partition not in partitions()
    assert partition in {d.partition for d in report.partitions}
