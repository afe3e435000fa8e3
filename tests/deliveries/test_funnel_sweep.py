"""The funnel's sweep (issue 51 §1, docs/funnel.md, "How it stays fast"; deliveries migration
0008): the steps' decisions are rolled up into funnel_count behind a watermark, off the step's
transaction. On committed rows, in connections of their own: a sweep counts each step log once,
across sweeps and a sweep killed before its commit; a step log whose transaction commits after a
later one (a lower id, committed late) is still counted, once; and the read is exact whenever it
is read, before the sweep and after.

The watermark is the oldest transaction still open on the whole server (other test sessions'
included), so each wait for it to pass a row has a deadline, not a length."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import psycopg
import pytest
from django.db import connection
from django.utils import timezone

from deliveries.funnel import funnel_counted, funnel_sweep
from tests.factories import chain, email_node
from tests.support.stack import wait_for
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance

# A copy of a sending step log of the run (another attempt): what the release writes for a step.
STEP_SQL = """
INSERT INTO step_log (trigger_id, workflow_id, node_id, node_type, attempt, started_at,
                      finished_at, input, output, success, error)
VALUES (%s, %s, 'mail', 'email', %s, statement_timestamp(), statement_timestamp(), '{}',
        '{"decision": {"decision": "sent"}}', true, '')
RETURNING txid::text::bigint
"""
STATE_SQL = """
SELECT w.swept_below::text::bigint,
       (SELECT COALESCE(sum(f.count), 0) FROM funnel_count f
        WHERE f.workflow_id = %s AND f.outcome = 'sent')
FROM funnel_sweep w
"""
DEADLINE = 120  # seconds for the server's oldest open transaction to end (another session's)


@pytest.fixture
def committed(django_db_setup, django_db_blocker) -> Iterator[TriggerInstance]:
    """A run of its own workflow, committed; connections of their own write its step logs."""
    with django_db_blocker.unblock():
        yield due_trigger(chain(email_node("mail")))


def connect() -> psycopg.Connection:
    return psycopg.connect(**connection.get_connection_params())


def step(conn: psycopg.Connection, run: TriggerInstance, attempt: int) -> int:
    """A sending step log of `run` in `conn`'s transaction; its txid."""
    row = conn.execute(STEP_SQL, [run.pk, run.workflow_id, attempt]).fetchone()
    assert row is not None
    return int(row[0])


def state(run: TriggerInstance) -> tuple[int, int]:
    """(the watermark, `run`'s workflow's `sent` in the rollup), read in one snapshot."""
    with connection.cursor() as cursor:
        cursor.execute(STATE_SQL, [run.workflow_id])
        mark, rolled = cursor.fetchone()
    return int(mark), int(rolled)


def exact(run: TriggerInstance) -> int:
    """`sent` as the funnel reads it: the rollup and the steps past the watermark."""
    now = timezone.now()
    rows = funnel_counted(
        workflow=run.workflow, start=now - timedelta(hours=2), end=now + timedelta(hours=2)
    )
    return sum(count for *_, outcome, count in rows if outcome == "sent")


def swept_past(run: TriggerInstance, txid: int) -> tuple[int, int]:
    """Sweep until the watermark is past `txid`; the state then."""

    def past() -> tuple[int, int] | None:
        funnel_sweep()
        now = state(run)
        return now if now[0] > txid else None

    return wait_for(past, timeout=DEADLINE, interval=0.2, message=f"the watermark past {txid}")


def sweep_killed(run: TriggerInstance) -> tuple[tuple[int, int], int] | None:
    """A sweep whose backend is killed before its commit, once it counted something: the state
    before it and what it counted (None, rolled back, while it could count nothing yet)."""
    with connect() as doomed:
        before = state(run)
        (counted,) = doomed.execute("SELECT notiflow_funnel_sweep_v1()").fetchone() or (0,)
        if not counted:
            doomed.rollback()
            return None
        with connect() as killer:
            killer.execute("SELECT pg_terminate_backend(%s)", [doomed.info.backend_pid])
        with pytest.raises(psycopg.OperationalError):
            doomed.commit()
    return before, counted


def test_each_step_is_counted_once_across_sweeps_and_a_sweep_killed_before_its_commit(
    committed, django_db_blocker
):
    run = committed
    with django_db_blocker.unblock(), connect() as writer:
        first = step(writer, run, 2)
        writer.commit()
        assert exact(run) == 1  # not swept yet, or swept: the same count
        assert swept_past(run, first)[1] == 1
        assert exact(run) == 1

        second = step(writer, run, 3)
        writer.commit()
        # A sweep that counted the second step, then died before its commit.
        before, counted = wait_for(
            lambda: sweep_killed(run), timeout=DEADLINE, interval=0.2,
            message="a sweep that counts the second step",
        )  # fmt: skip
        after = state(run)
        # The watermark stayed unless another sweep (the stack's beat) moved it since.
        assert after == before or after[0] > before[0], (before, after)
        assert before[1] == 1 and counted >= 1
        assert exact(run) == 2

        assert swept_past(run, second)[1] == 2
        funnel_sweep()
        assert state(run)[1] == exact(run) == 2


def test_a_step_committed_after_a_later_one_is_counted_once(committed, django_db_blocker):
    """The step log with the lower id (and transaction id) commits last: the watermark waits
    for its transaction, so the sweep that passes it counts it."""
    run = committed
    with django_db_blocker.unblock(), connect() as late, connect() as early:
        low = step(late, run, 2)  # its transaction stays open
        high = step(early, run, 3)
        early.commit()
        assert low < high

        funnel_sweep()
        mark, rolled = state(run)
        assert mark <= low  # no sweep passes an open transaction
        assert rolled == 0  # so the later step waits with it, past the watermark
        assert exact(run) == 1  # read all the same: the committed one

        late.commit()
        assert exact(run) == 2
        assert swept_past(run, high)[1] == 2
        funnel_sweep()
        assert state(run)[1] == exact(run) == 2


def test_a_rolled_back_step_is_never_counted(committed, django_db_blocker):
    run = committed
    with django_db_blocker.unblock(), connect() as writer:
        gone = step(writer, run, 2)
        writer.rollback()
        kept = step(writer, run, 3)
        writer.commit()
        assert gone < kept
        assert swept_past(run, kept)[1] == 1
        assert exact(run) == 1
