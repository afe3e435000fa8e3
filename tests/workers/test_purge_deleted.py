"""Retention of soft-deleted triggers (`manage.py purge_deleted`, docs/design/rules.md rules 8 and 12):
only triggers deleted before the cutoff leave, with all their rows; nothing else can."""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.utils import timezone

from tests.workers.history import backdate, trigger_with_history
from tests.workers.test_db_roles import as_role, denied, roles  # noqa: F401 (a fixture)
from tests.workers.test_retention import history_counts
from triggers.models import TriggerInstance
from triggers.state import trigger_delete
from workers.services.retention import retention_purge, retention_purge_deleted

pytestmark = pytest.mark.django_db

LONG_AGO = timezone.now() - timedelta(days=40)


def deleted(status: str, *, when=LONG_AGO) -> TriggerInstance:
    """A trigger with its history (events, and a step log and ledger row once it has run),
    soft-deleted at `when`."""
    trigger = trigger_with_history(status=status)
    trigger_delete(trigger_id=trigger.pk, actor="tests", reason="tests")
    TriggerInstance.objects.filter(pk=trigger.pk).update(deleted_at=when)
    return TriggerInstance.objects.get(pk=trigger.pk)


def purge_deleted(*args: str) -> str:
    out = StringIO()
    call_command("purge_deleted", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("status", ["enqueued", "completed", "failed"])
def test_trigger_deleted_before_the_cutoff_is_purged_with_all_its_history(status):
    trigger = deleted(status)
    assert history_counts(trigger)[3] >= 2  # created, deleted (and claimed, finished)

    report = retention_purge_deleted(older_than=timedelta(days=30))

    assert history_counts(trigger) == (0, 0, 0, 0)
    assert report.deleted["trigger_instance"] == 1


def test_recent_deletes_and_triggers_not_deleted_are_kept():
    recent = deleted("completed", when=timezone.now() - timedelta(days=1))
    # Old and finished, but not deleted: purge_logs' business, never purge_deleted's.
    old_live = trigger_with_history(status="completed")
    backdate(old_live, LONG_AGO)
    old_enqueued = trigger_with_history(status="enqueued")
    backdate(old_enqueued, LONG_AGO)
    kept = {t.pk: history_counts(t) for t in (recent, old_live, old_enqueued)}
    doomed = deleted("failed")

    purge_deleted("--older-than", "30d")

    assert history_counts(doomed) == (0, 0, 0, 0)
    assert {pk: history_counts(TriggerInstance(pk=pk)) for pk in kept} == kept


def test_a_deleted_trigger_under_a_live_lease_waits_for_the_next_run():
    """A step running when its trigger was deleted may still record its outcome."""
    running = deleted("processing")
    assert running.lease_until > timezone.now()
    before = history_counts(running)

    assert retention_purge_deleted(older_than=timedelta(days=30)).deleted["trigger_instance"] == 0
    assert history_counts(running) == before

    # The lease runs out (the test's transaction fixes PostgreSQL's now() at its start).
    expired = timezone.now() - timedelta(hours=1)
    TriggerInstance.objects.filter(pk=running.pk).update(lease_until=expired)
    retention_purge_deleted(older_than=timedelta(days=30))
    assert history_counts(running) == (0, 0, 0, 0)


def test_purge_logs_takes_finished_deleted_triggers_too_and_never_unfinished_ones():
    finished, unfinished = deleted("completed"), deleted("enqueued")
    backdate(finished, LONG_AGO)
    backdate(unfinished, LONG_AGO)
    before = history_counts(unfinished)

    retention_purge(older_than=timedelta(days=30))

    assert history_counts(finished) == (0, 0, 0, 0)
    assert history_counts(unfinished) == before


def test_dry_run_deletes_nothing_and_reports_what_the_purge_then_deletes():
    triggers = [deleted("completed"), deleted("enqueued"), deleted("failed")]
    deleted("completed", when=timezone.now() - timedelta(hours=1))  # too recent: in neither
    before = [history_counts(t) for t in triggers]

    dry = purge_deleted("--older-than", "30d", "--dry-run")
    assert [history_counts(t) for t in triggers] == before
    real = purge_deleted("--older-than", "30d")

    counts = dry.split("): ", 1)[1]
    assert dry.startswith("Would delete (deleted before ")
    assert real.strip().splitlines()[-1].startswith("Deleted (deleted before ")
    assert real.strip().splitlines()[-1].endswith(counts.strip())
    assert "trigger_instance 3," in counts
    assert [history_counts(t) for t in triggers] == [(0, 0, 0, 0)] * 3


def test_command_works_in_batches_printing_a_line_for_each():
    for _ in range(3):
        deleted("failed")

    lines = purge_deleted("--older-than", "720h", "--batch-size", "2").strip().splitlines()

    # A bar against the count made first, then what the batch deleted.
    assert lines[0].startswith(
        "batch 1: [#############-------] 2 of 3 triggers (67%); trigger_instance 2,"
    )
    assert lines[1].startswith(
        "batch 2: [####################] 3 of 3 triggers (100%); trigger_instance 1,"
    )
    assert re.search(r"trigger_instance 3, trigger_event \d+, send_ledger 3, step_log 3$", lines[2])


@pytest.mark.parametrize(
    "args", [("--older-than", "0d"), ("--older-than", "soon"), ("--batch-size", "0")]
)
def test_command_refuses_a_bad_period_or_batch_size(args):
    options = ("--older-than", "30d", *args) if args[0] == "--batch-size" else args
    with pytest.raises(CommandError, match=args[0]):
        purge_deleted(*options)


def test_the_application_still_cannot_delete_history_after_a_purge():
    deleted("completed")
    kept = trigger_with_history(status="completed")
    retention_purge_deleted(older_than=timedelta(days=30))
    for table in ("step_log", "trigger_event", "send_ledger"):
        with (
            pytest.raises(Exception, match=f"{table} is append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(f"DELETE FROM {table} WHERE trigger_id = %s", [str(kept.pk)])  # noqa: S608


def test_the_process_roles_may_not_run_the_purge(roles):  # noqa: F811
    for name in roles.values():
        with as_role(name):
            denied("SELECT * FROM notiflow_purge_deleted_batch(now(), 10)")
