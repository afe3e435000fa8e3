"""`GET /api/triggers/<id>/?wait=` in-process (Django's test client: no adapter, so the view
polls itself) and the web process's shared TerminalWaiter against the real PostgreSQL."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator

import psycopg
import pytest

from tests.support.smtp import free_port
from tests.workers.helpers import due_trigger, idle_trigger
from triggers.models import TriggerInstance
from triggers.waiting import TerminalWaiter, waiter_connection_params


@pytest.mark.parametrize("wait", ["abc", "", "-1", "-0.5", "30.01", "31", "nan", "inf", "1e9"])
def test_a_bad_wait_is_a_400_naming_wait(api_client, wait):
    trigger = due_trigger()
    response = api_client.get(f"/api/triggers/{trigger.pk}/", {"wait": wait})
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["detail"]
    assert list(body["errors"]) == ["wait"]
    assert "0 to 30" in body["errors"]["wait"][0]


def test_a_bad_wait_is_a_400_even_for_an_unknown_trigger(api_client):
    response = api_client.get(f"/api/triggers/{uuid.uuid4()}/", {"wait": "x"})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["wait"]


@pytest.mark.parametrize("wait", [None, "0", "0.0"])
def test_no_wait_answers_at_once(api_client, wait):
    trigger = due_trigger()
    started = time.monotonic()
    response = api_client.get(
        f"/api/triggers/{trigger.pk}/", {} if wait is None else {"wait": wait}
    )
    assert response.status_code == 200
    assert response.json()["status"] == "enqueued"
    assert time.monotonic() - started < 0.5


@pytest.mark.parametrize("status", ["completed", "failed", "cancelled"])
def test_a_finished_trigger_is_answered_at_once(api_client, status):
    trigger = due_trigger()
    TriggerInstance.objects.filter(pk=trigger.pk).update(status=status)
    started = time.monotonic()
    response = api_client.get(f"/api/triggers/{trigger.pk}/", {"wait": "30"})
    assert response.status_code == 200
    assert response.json()["status"] == status
    assert time.monotonic() - started < 1


def test_an_unknown_trigger_is_a_404_at_once(api_client):
    started = time.monotonic()
    response = api_client.get(f"/api/triggers/{uuid.uuid4()}/", {"wait": "30"})
    assert response.status_code == 404
    assert time.monotonic() - started < 1


def test_without_the_adapter_the_view_waits_out_the_deadline_itself(api_client, settings):
    settings.NOTIFLOW_WAIT_POLL_SECONDS = 0.05
    trigger = due_trigger()
    started = time.monotonic()
    response = api_client.get(f"/api/triggers/{trigger.pk}/", {"wait": "0.4"})
    elapsed = time.monotonic() - started
    assert response.status_code == 200
    assert response.json()["status"] == "enqueued"
    assert 0.4 <= elapsed < 1.5


def test_the_wait_is_in_the_schema(api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    parameters = schema["paths"]["/api/triggers/{trigger_id}/"]["get"]["parameters"]
    (wait,) = [p for p in parameters if p["name"] == "wait"]
    assert wait["in"] == "query"
    assert wait["schema"] == {"type": "number", "minimum": 0, "maximum": 30}


# --- the shared waiter ---------------------------------------------------------------------------


@pytest.fixture
def committed(django_db_setup, django_db_blocker) -> Iterator[None]:
    """Rows the waiter's own connection can see: committed, each test's its own (no flush)."""
    with django_db_blocker.unblock():
        yield


async def _connect() -> psycopg.AsyncConnection:
    """A connection of the test's own (not named as the waiter's)."""
    params = {**waiter_connection_params(), "application_name": "notiflow-tests"}
    return await psycopg.AsyncConnection.connect(**params)


async def _finish_after(trigger_id: uuid.UUID, seconds: float, status: str = "completed") -> float:
    """Commit the trigger's new status `seconds` from now; when it was committed."""
    await asyncio.sleep(seconds)
    async with await _connect() as conn:
        await conn.execute(
            "UPDATE trigger_instance SET status = %s WHERE id = %s", (status, trigger_id)
        )
    return time.monotonic()


def test_the_waiter_wakes_its_clients_once_the_trigger_is_finished(committed):
    triggers = [idle_trigger() for _ in range(3)]
    other = idle_trigger()

    async def run() -> tuple[list[bool], float, float, bool, TerminalWaiter]:
        waiter = TerminalWaiter(interval=0.05, connection_params=waiter_connection_params())
        try:
            finishing = asyncio.ensure_future(_finish_after(triggers[0].pk, 0.3))
            # Two clients on the same trigger, one on another, one on a trigger that does not finish.
            waits = [
                waiter.wait(triggers[0].pk, 5),
                waiter.wait(triggers[0].pk, 5),
                waiter.wait(triggers[1].pk, 0.6),
            ]
            started = time.monotonic()
            results = list(await asyncio.gather(*waits[:2]))
            woke = time.monotonic()
            results.append(await waits[2])
            committed_at = await finishing
            # Nothing left waiting: the poll stops.
            polls = waiter.polls
            await asyncio.sleep(0.3)
            idle = waiter.polls == polls and waiter.waiting == 0
            assert woke - started < 5
            return results, woke, committed_at, idle, waiter
        finally:
            await waiter.close()

    results, woke, committed_at, idle, waiter = asyncio.run(run())
    assert results == [True, True, False]
    assert 0 <= woke - committed_at < 0.5  # within about one poll interval
    assert idle
    assert waiter.failures == 0
    assert TriggerInstance.objects.get(pk=other.pk).status == "enqueued"


def test_the_waiter_survives_a_database_that_does_not_answer(committed):
    trigger = idle_trigger()
    dead = {**waiter_connection_params(), "host": "127.0.0.1", "port": free_port()}

    async def run() -> tuple[bool, float, TerminalWaiter]:
        waiter = TerminalWaiter(interval=0.05, connection_params=dead)
        started = time.monotonic()
        try:
            finished = await waiter.wait(trigger.pk, 0.5)
            return finished, time.monotonic() - started, waiter
        finally:
            await waiter.close()

    finished, elapsed, waiter = asyncio.run(run())
    assert finished is False
    assert 0.5 <= elapsed < 1.5  # answered at the deadline
    assert waiter.failures >= 1


def test_the_waiter_reconnects_after_losing_its_connection(committed):
    trigger = idle_trigger()

    async def run() -> tuple[bool, TerminalWaiter]:
        waiter = TerminalWaiter(interval=0.05, connection_params=waiter_connection_params())
        try:
            first = asyncio.ensure_future(waiter.wait(trigger.pk, 10))
            await asyncio.sleep(0.2)  # it polls, connected
            assert waiter.polls >= 1
            async with await _connect() as conn:
                await conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = 'notiflow-web-waiter' AND datname = current_database()"
                )
            await _finish_after(trigger.pk, 0.1)
            return await first, waiter
        finally:
            await waiter.close()

    finished, waiter = asyncio.run(run())
    assert finished is True
    assert waiter.failures >= 1
