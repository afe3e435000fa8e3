"""A schedule in the live stack (docs/guide/schedules.md): its occurrence fires through the
workers' sweep and tasks, a chunk at a time, and every pool process serving its queue
SIGKILLed mid-occurrence loses no run and makes none twice (the step under way rolls back with
its chunk; the sweeper nudges the schedule again once its lease expires; the runs' keys are the
schedule's, the recipient's and the occurrence's)."""

from __future__ import annotations

import os
import signal
import threading
from collections import Counter
from datetime import timedelta

import pytest

from schedules.models import Schedule, ScheduleOccurrence
from schedules.services import db_now
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, delay_node
from tests.schedules.support import topic_of
from tests.support.stack import wait_for
from tests.triggers.test_fanout_e2e import pool_processes
from triggers.models import TriggerInstance

pytestmark = pytest.mark.e2e

SUBSCRIBERS = 1500


def test_workers_killed_mid_occurrence_lose_no_run_and_make_none_twice(api, e2e):
    workflow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=50)))
    topic, keys = topic_of(SUBSCRIBERS)
    schedule_id = unique("crowd")
    # One occurrence, a few seconds from now on the wall of each subscriber (UTC: none has a zone).
    starts = (db_now() + timedelta(seconds=4)).strftime("%Y-%m-%dT%H:%M:%S")
    body = {
        "workflow": workflow.key,
        "topic": topic,
        "repeat": "FREQ=MINUTELY;COUNT=1",
        "starts_at": starts,
    }

    answer = api.put(f"/api/schedules/{schedule_id}/", body)
    assert answer.status_code == 201, answer.text
    assert answer.json()["next_occurrences"]["local"] == [starts]
    made = TriggerInstance.objects.filter(workflow=workflow)
    wait_for(lambda: made.count() >= 200, timeout=60, message="the occurrence under way")
    assert made.count() < SUBSCRIBERS
    victims = pool_processes(e2e, ("default", "billing"))  # both serve `default`
    assert victims
    for pid in victims:
        os.kill(pid, signal.SIGKILL)

    record = wait_for(
        lambda: ScheduleOccurrence.objects.filter(schedule_id=schedule_id).first(),
        timeout=120,
        message="the occurrence fired",
    )
    assert (record.status, record.zone, record.runs) == ("fired", "UTC", SUBSCRIBERS)
    runs = Counter(made.values_list("recipient", flat=True))
    assert set(runs) == set(keys) and set(runs.values()) == {1}
    at = record.occurs_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert set(made.values_list("idempotency_key", flat=True)) == {
        f"schedule:{schedule_id}:{key}:{at}" for key in keys
    }
    schedule = Schedule.objects.get(pk=schedule_id)
    assert (schedule.next_local, schedule.runs_created) == ("", SUBSCRIBERS)  # COUNT=1: done
    wait_for(
        lambda: not made.filter(status__in=["enqueued", "processing"]).exists(),
        timeout=120,
        message="every run finished",
    )
    assert api.delete(f"/api/schedules/{schedule_id}/").status_code == 204


def test_concurrent_puts_of_a_new_id_make_one_schedule_and_answer_every_one(e2e):
    """Four PUTs of one new id at once (committed, each on its own connection): one creates it,
    the others replace it (the insert's conflict met as get_or_create meets it), none fails."""
    from django.db import connection

    from schedules.services import ScheduleRequest, schedule_put

    flow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=0)))
    schedule_id = unique("raced")
    test_database = connection.settings_dict["NAME"]
    start = threading.Barrier(4)
    created: list[bool] = []
    errors: list[BaseException] = []

    def put() -> None:
        try:
            # pytest-django points only the main thread's connection at the test database.
            connection.settings_dict["NAME"] = test_database
            start.wait(timeout=10)
            request = ScheduleRequest(
                id=schedule_id, workflow=flow.key, repeat="FREQ=YEARLY", recipients=["a"]
            )
            created.append(schedule_put(request)[1])
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=put) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert errors == []
    assert sorted(created) == [False, False, False, True]
    assert Schedule.objects.filter(pk=schedule_id).count() == 1
    Schedule.objects.filter(pk=schedule_id).delete()
