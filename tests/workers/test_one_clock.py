"""One clock (docs/design/rules.md, rule 15; docs/design/deployment.md, "One clock"): every due time a step sets is the database's
clock plus a duration, and every time a run's row stores is the database's, whatever the worker's
wall clock says. Each test runs one step (or an operator's change) in-process with the worker's
clock an hour ahead (`timezone.now` and `time.time`) and finds the time on the database's clock,
`statement_timestamp()`, the one clock function every statement reads (the scan below)."""

from __future__ import annotations

import contextlib
import re
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
from django.conf import settings
from django.core import mail
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from tests.factories import (
    chain,
    delay_node,
    digest_node,
    email_node,
    sms_node,
    throttle_node,
    window_node,
)
from tests.support.functions import function_definition, installed_functions, superseded
from tests.support.sources import project_sources
from tests.support.stack import ROOT
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from triggers.sql import (
    CLAIM_FUNCTION,
    RELEASE_FUNCTION,
    RUN_ENDED_FUNCTION,
    RUN_PARK_FUNCTION,
    RUNS_HOLD_FUNCTION,
    RUNS_RESUME_FUNCTION,
)
from triggers.state import trigger_cancel, trigger_delete
from triggers.steps import Release, release_params
from workers.channels import CHANNELS
from workers.models import Digest, SendLedger, StepExecutionLog, ThrottlePass
from workers.services import caps
from workers.services.engine import step_execute
from workflows.nodes.base import output_key
from workflows.timing import WEEKDAYS

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("locmem_email")]

SKEW = timedelta(hours=1)
RUN_STATE_FUNCTIONS = (
    CLAIM_FUNCTION,
    RELEASE_FUNCTION,
    RUNS_HOLD_FUNCTION,
    RUNS_RESUME_FUNCTION,
    RUN_PARK_FUNCTION,
    RUN_ENDED_FUNCTION,
)
CLOSE = timedelta(seconds=5)  # the step's own duration, and slack for a loaded machine


@pytest.fixture
def locmem_email():
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        yield


def db_now() -> datetime:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement_timestamp()")
        return cursor.fetchone()[0]


@contextlib.contextmanager
def worker_clock_ahead() -> Iterator[None]:
    """The worker's wall clock an hour ahead of the database's."""
    real_now, real_time = timezone.now, time.time
    with (
        mock.patch("django.utils.timezone.now", lambda: real_now() + SKEW),
        mock.patch("time.time", lambda: real_time() + SKEW.total_seconds()),
    ):
        yield


def skewed_step(trigger: TriggerInstance) -> TriggerInstance:
    with worker_clock_ahead():
        step_execute(trigger_id=str(trigger.pk), worker_id="w")
    trigger.refresh_from_db()
    return trigger


def assert_close(actual: datetime, expected: datetime) -> None:
    assert expected - CLOSE < actual < expected + CLOSE, (actual, expected)


def test_a_delay_is_due_a_delay_after_the_databases_now():
    trigger = due_trigger(chain(delay_node("wait", delay_ms=60_000), email_node("mail")))
    trigger = skewed_step(trigger)
    assert trigger.current_node_id == "mail"
    assert_close(trigger.available_at, db_now() + timedelta(seconds=60))


@override_settings(NOTIFLOW_RETRY_BASE_SECONDS=60, NOTIFLOW_RETRY_JITTER=0)
def test_a_retry_backs_off_from_the_databases_now(monkeypatch):
    def down(*args, **kwargs):
        raise RuntimeError("provider down")

    monkeypatch.setattr(CHANNELS["email"], "send", down)
    trigger = skewed_step(due_trigger())
    assert trigger.status == "enqueued" and trigger.attempts == 1
    assert_close(trigger.available_at, db_now() + timedelta(seconds=60))


def test_a_window_is_judged_on_the_databases_clock():
    now = db_now().astimezone(UTC)
    hours = window_node(
        "hours",
        timezone="UTC",
        days=list(WEEKDAYS),
        start=f"{now - timedelta(minutes=20):%H:%M}",
        end=f"{now + timedelta(minutes=30):%H:%M}",
    )
    trigger = skewed_step(due_trigger(chain(hours, email_node("mail"))))
    # Open on the database's clock (an hour later, on the worker's, it is closed).
    assert trigger.current_node_id == "mail"
    assert_close(trigger.available_at, now)


def test_a_digest_window_closes_a_window_after_the_databases_clock():
    definition = chain(digest_node("batch", window="10m"), email_node("mail"))
    payload = {"email": "a@example.com", "name": "A", "user": "u1"}
    trigger = skewed_step(due_trigger(definition, payload=payload))
    digest = Digest.objects.get(opener_id=trigger.pk)
    assert_close(digest.closes_at, db_now() + timedelta(minutes=10))
    assert_close(trigger.available_at, digest.closes_at)  # the wait until then, on one clock


def test_a_throttle_window_counts_back_from_the_databases_clock():
    definition = chain(throttle_node("cap", limit=1, window="1h"), email_node("mail"))
    trigger = due_trigger(definition, payload={"email": "a@example.com", "name": "A", "user": "u"})
    earlier = db_now() - timedelta(minutes=30)  # within the hour on the database's clock
    ThrottlePass.objects.create(
        workflow_id=trigger.workflow_id,
        node_id="cap",
        key="u",
        trigger_id=uuid.uuid4(),
        passed_at=earlier,
        expires_at=earlier + timedelta(hours=1),
    )
    trigger = skewed_step(trigger)
    assert trigger.vars["throttle_cap"]["throttled"] is True
    assert trigger.status == "completed" and mail.outbox == []


@override_settings(NOTIFLOW_SEND_CAP_PER_RECIPIENT=1)
def test_a_send_cap_counts_in_the_databases_hour():
    address = f"cap-{uuid.uuid4().hex[:8]}@example.com"
    hour = int(db_now().timestamp()) // caps.WINDOW_SECONDS
    client = caps._client(settings.NOTIFLOW_REDIS_URL)
    key = caps._key("email-to", address, hour)
    client.set(key, 1, ex=caps.WINDOW_SECONDS * 2)  # this hour's one message already went
    try:
        definition = chain(email_node("mail", to="{{ payload.to }}"))
        trigger = skewed_step(due_trigger(definition, payload={"to": address, "name": "A"}))
    finally:
        client.delete(key)
    assert trigger.status == "failed" and mail.outbox == []
    assert f"send cap: recipient {address} reached 1 email messages" in trigger.last_error


@pytest.mark.parametrize("channel", ["email", "sms"])
def test_a_sends_sent_at_is_on_the_databases_clock(channel):
    """The send result's `sent_at`, as the step log, the ledger and the run's vars store it, is
    the step's clock (the claim's reading, advanced by the monotonic clock)."""
    node = email_node("first") if channel == "email" else sms_node("first")
    trigger = skewed_step(due_trigger(chain(node)))
    now = db_now()
    ledger = SendLedger.objects.get(trigger=trigger, node_id="first")
    log = StepExecutionLog.objects.get(trigger=trigger, node_id="first")
    stamps = [
        ledger.result["sent_at"],
        log.output["sent_at"],
        trigger.vars[output_key(node)]["sent_at"],
    ]
    for stamp in stamps:
        assert_close(datetime.fromisoformat(stamp), now)


def test_a_cancel_and_a_delete_stamp_the_databases_clock():
    cancelled, deleted = due_trigger(), due_trigger()
    with worker_clock_ahead():
        trigger_cancel(trigger_id=cancelled.pk, actor="test")
        trigger_delete(trigger_id=deleted.pk, actor="test")
    now = db_now()
    cancelled.refresh_from_db()
    deleted.refresh_from_db()
    for stamped in (cancelled.completed_at, cancelled.updated_at, deleted.deleted_at):
        assert_close(stamped, now)
    assert_close(deleted.updated_at, now)


def test_a_release_is_given_its_due_time_as_a_duration():
    """The release adds the wait to the database's clock; the worker passes no instant."""
    params = release_params(
        trigger_id=uuid.uuid4(),
        lease_token="w",
        step_node_id="n",
        release=Release(status="enqueued", current_node_id="n", wait=SKEW, reason="r"),
    )
    assert params["due_in"] == SKEW.total_seconds()
    assert [name for name, value in params.items() if isinstance(value, datetime)] == []


# Every clock function of PostgreSQL but the one (statement_timestamp: rule 15), as SQL spells
# them: `now()` not preceded by a dot or a name (Python's `timezone.now()`, `clock.now()`).
OTHER_CLOCKS = re.compile(
    r"(?<![\w.])now\(\)|\b(?:clock_timestamp|transaction_timestamp|timeofday)\(\)"
    r"|\b(?:CURRENT_TIMESTAMP|LOCALTIMESTAMP|CURRENT_TIME|LOCALTIME)\b"
)


def test_the_scan_finds_another_clock():
    assert OTHER_CLOCKS.findall("SET a = now(), b = clock_timestamp()") == [
        "now()",
        "clock_timestamp()",
    ]
    assert OTHER_CLOCKS.findall("t = timezone.now(); u = step.clock.now()") == []


def test_every_statement_reads_one_clock():
    """The project's SQL (migrations aside: frozen history) and every database function installed
    read statement_timestamp() alone, but for the versions a later one superseded (kept for
    the workers of the previous release during a deploy), which nothing current calls."""
    found = [
        f"{path.relative_to(ROOT).as_posix()}: {line.strip()}"
        for path in project_sources()
        for line in path.read_text().splitlines()
        if OTHER_CLOCKS.search(line) and not line.lstrip().startswith("#")
    ]
    installed = installed_functions()
    old = superseded(installed)
    assert set(RUN_STATE_FUNCTIONS) <= set(installed) - old
    for function in sorted(set(installed) - old):
        body = function_definition(function)
        found += [
            f"{function}: {line.strip()}" for line in body.splitlines() if OTHER_CLOCKS.search(line)
        ]
        found += [f"{function} calls {name}" for name in old if re.search(rf"\b{name}\(", body)]
    assert found == []


def test_the_superseded_functions_are_the_earlier_versions():
    names = ["notiflow_a_v1", "notiflow_a_v2", "notiflow_a_v3", "notiflow_b_v1", "notiflow_c"]
    assert superseded(names) == {"notiflow_a_v1", "notiflow_a_v2"}
