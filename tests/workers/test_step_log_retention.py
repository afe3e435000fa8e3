"""Retention with the step log's partitions (workers migration 0014; docs/reliability/index.md,
"History by partition"): a partition dropped whole once its runs are gone, kept while one is
left. Each test on a database of its own (a copy of the template), committed as the workers and
purge_logs commit: a purge reads the whole database, and other tests commit runs of their own
into the test database."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, timedelta
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
from triggers.models import EVENTS_BEFORE_RUN, TriggerEvent, TriggerInstance
from workers.models import StepExecutionLog
from workers.services.history import partitions_ensure
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
    partitions_ensure(now=timezone.now() + timedelta(days=14))
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


# --- the runs' events, partitioned by their own time (workers migration 0015) -------------------


def event_partition(when) -> str:
    return "trigger_event_p" + when.astimezone(UTC).strftime("%Y%m%d")


def event_partitions() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT partition FROM notiflow_trigger_event_ranges_v1()")
        return {name for (name,) in cursor.fetchall()}


def run_at(when, *, status: str = "completed") -> TriggerInstance:
    """A run with its history, created at `when` (ahead: the partitions from the migration's day
    on hold nothing of other tests), with one more event stamped then, as a run created then
    would have: the engine's own events are stamped now, in the table from before."""
    trigger = trigger_with_history(status=status, created_at=when)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO trigger_event (trigger_id, from_status, to_status, reason, actor,"
            " created_at) VALUES (%s, '', 'enqueued', 'tests', 'tests', %s)",
            [trigger.pk, when],
        )
    return trigger


def day_start(when):
    return when.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def test_purge_drops_an_event_partition_whole_and_the_old_tables_rows_row_by_row():
    partitions_ensure(now=timezone.now() + timedelta(days=14))
    day = day_start(timezone.now() + AHEAD)
    trigger = run_at(day + timedelta(hours=12))
    in_legacy = TriggerEvent.objects.filter(trigger_id=trigger.pk).count() - 1
    assert in_legacy >= 2 and event_partition(day) in event_partitions()

    report = retention_purge(older_than=timedelta(days=30), now=day + timedelta(days=40))

    assert not TriggerEvent.objects.filter(trigger_id=trigger.pk).exists()
    dropped = {d.partition: d.rows for d in report.partitions if d.table == "trigger_event"}
    assert dropped[event_partition(day)] == 1
    assert event_partition(day) not in event_partitions()
    assert report.deleted["trigger_event"] == in_legacy + sum(dropped.values())
    # Never a partition whose range is not wholly past the cutoff.
    assert event_partition(day + timedelta(days=11)) in event_partitions()


def test_a_run_created_within_the_margin_after_an_event_partition_keeps_it():
    """An event may be stamped a little before its run's creation (workers migration 0015,
    MARGIN): a run left that was created within an hour of a partition's end keeps it; its
    purged runs' events go row by row, and the partition goes once that run is later."""
    day = day_start(timezone.now() + AHEAD)
    purged = run_at(day + timedelta(hours=12))
    waiting = run_at(day + timedelta(days=1, minutes=30), status="processing")
    later = day + timedelta(days=40)

    report = retention_purge(older_than=timedelta(days=30), now=later)

    assert event_partition(day) in event_partitions()
    assert not TriggerEvent.objects.filter(trigger_id=purged.pk).exists()
    assert TriggerEvent.objects.filter(trigger_id=waiting.pk).count() >= 2
    assert event_partition(day) not in {d.partition for d in report.partitions}

    TriggerInstance.objects.filter(pk=waiting.pk).update(
        created_at=day + timedelta(days=1, hours=2)
    )
    report = retention_purge(older_than=timedelta(days=30), now=later)
    assert event_partition(day) not in event_partitions()
    assert {d.partition: d.rows for d in report.partitions}[event_partition(day)] == 0
    assert TriggerEvent.objects.filter(trigger_id=waiting.pk).count() >= 2


def test_purge_logs_names_the_event_partitions_it_dropped():
    day = day_start(timezone.now() + AHEAD)
    run_at(day + timedelta(hours=12))
    out = StringIO()
    with mock.patch("django.utils.timezone.now", return_value=day + timedelta(days=40)):
        call_command("purge_logs", "--older-than", "30d", stdout=out)
    assert "run event partitions dropped (their rows): " in out.getvalue()
    assert f" {event_partition(day)} 1" in out.getvalue()


def test_the_last_event_partition_is_never_dropped():
    """The next partitions are made from where the last ends: a purge whose cutoff is past every
    partition (a clock far ahead) keeps it."""
    last = max(event_partitions())  # their names sort by day
    report = retention_purge(older_than=timedelta(days=1), now=timezone.now() + timedelta(days=60))
    assert event_partitions() == {last}
    assert last not in {d.partition for d in report.partitions}
    assert partitions_ensure(now=timezone.now() + timedelta(days=60))


def test_a_runs_events_are_read_from_the_partitions_from_its_creation_on():
    """The run's page and its explanation (TriggerEventQuerySet.of_run) read the event partitions
    from the run's creation (less EVENTS_BEFORE_RUN) on, none before. In this database of its own
    the events' partitions start ten days ago (the table from before is empty), as on an
    installation upgraded ten days ago."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT partition FROM notiflow_trigger_event_ranges_v1()")
        for (name,) in cursor.fetchall():
            cursor.execute(f'DROP TABLE "{name}"')
        start = day_start(timezone.now() - timedelta(days=10))
        cursor.execute(
            "SELECT notiflow_trigger_event_partition_v1(%s, %s)",
            [start, start + timedelta(days=1)],
        )
    partitions_ensure()
    trigger = trigger_with_history(status="completed")

    def scanned(events) -> set[str]:
        return set(re.findall(r"on (trigger_event_\w+)", events.explain()))

    everything = scanned(TriggerEvent.objects.filter(trigger_id=trigger.pk))
    pruned = scanned(TriggerEvent.objects.of_run(trigger))
    first = event_partition(trigger.created_at - EVENTS_BEFORE_RUN)
    before = {name for name in everything if name.startswith("trigger_event_p") and name < first}
    assert len(before) >= 9 and first in pruned
    assert pruned == everything - before  # and the table from before, where events are till FIRST
    events = list(TriggerEvent.objects.filter(trigger_id=trigger.pk))
    assert len(events) >= 3 and list(TriggerEvent.objects.of_run(trigger)) == events
