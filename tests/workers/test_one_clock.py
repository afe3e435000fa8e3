"""One clock (docs/design.md, "One clock"): every due time a step sets is the database's now()
plus a duration, whatever the worker's wall clock says. Each test runs one step in-process with
the worker's clock an hour ahead (`timezone.now` and `time.time`) and finds the due time on the
database's clock. Inside a test's transaction the database's now() stands still at its start."""

from __future__ import annotations

import contextlib
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

from tests.factories import chain, delay_node, digest_node, email_node, throttle_node, window_node
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workers.channels import CHANNELS
from workers.models import Digest, ThrottlePass
from workers.services import caps
from workers.services.engine import step_execute
from workflows.timing import WEEKDAYS

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("locmem_email")]

SKEW = timedelta(hours=1)
CLOSE = timedelta(seconds=5)  # the step's own duration, and slack for a loaded machine


@pytest.fixture
def locmem_email():
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        yield


def db_now() -> datetime:
    with connection.cursor() as cursor:
        cursor.execute("SELECT now()")
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
    assert trigger.available_at == digest.closes_at


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
