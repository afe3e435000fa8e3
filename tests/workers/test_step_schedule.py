"""When the next step runs (docs/design/rules.md, rule 5), checked on what the engine records and
publishes, in-process and exactly: a wait up to NOTIFLOW_MAX_COUNTDOWN_SECONDS rides the nudge's
countdown; a longer one is left in `available_at` for the sweeper. The end-to-end tests check
only that nothing runs early, and `make bench` reports how late a real worker runs a step."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings

from tests.factories import chain, delay_node, email_node, sms_node
from tests.workers.helpers import due_trigger
from triggers import dispatch
from triggers.models import TriggerInstance
from workers.channels import CHANNELS
from workers.errors import TransientError
from workers.models import StepExecutionLog
from workers.services.engine import step_execute

pytestmark = [
    pytest.mark.django_db,
    # The stack's timings (tests/conftest.py, STACK_SETTINGS).
    pytest.mark.usefixtures("stack_timings"),
]

BASE = timedelta(seconds=0.5)
CAP = timedelta(seconds=2)


@pytest.fixture
def stack_timings():
    with override_settings(
        NOTIFLOW_RETRY_BASE_SECONDS=BASE.total_seconds(),
        NOTIFLOW_RETRY_JITTER=0,
        NOTIFLOW_MAX_RETRIES=3,
        NOTIFLOW_MAX_COUNTDOWN_SECONDS=CAP.total_seconds(),
    ):
        yield


@pytest.fixture
def published(monkeypatch) -> list[tuple[str, float | None]]:
    """The nudges the step publishes on commit: (trigger id, countdown)."""
    nudges: list[tuple[str, float | None]] = []
    monkeypatch.setattr(
        dispatch,
        "triggers_publish",
        lambda batch: nudges.extend((str(n.trigger_id), n.countdown) for n in batch),
    )
    return nudges


@pytest.fixture
def failing_email(monkeypatch):
    def defer(*args, **kwargs):
        raise TransientError("SMTP 451: later")

    monkeypatch.setattr(CHANNELS["email"], "send", defer)


def run_one_step(trigger: TriggerInstance, capture) -> tuple[TriggerInstance, StepExecutionLog]:
    with capture(execute=True):
        step_execute(trigger_id=str(trigger.pk), worker_id="w")
    trigger.refresh_from_db()
    return trigger, StepExecutionLog.objects.filter(trigger=trigger).latest("attempt")


def assert_due_after(trigger: TriggerInstance, step: StepExecutionLog, wait: timedelta) -> None:
    """Due = an instant the engine took inside the step + `wait`."""
    assert step.started_at + wait <= trigger.available_at <= step.finished_at + wait


def test_a_wait_within_the_cap_is_nudged_with_exactly_the_remaining_wait(
    published, django_capture_on_commit_callbacks
):
    wait = timedelta(milliseconds=1500)
    definition = chain(delay_node("pause", delay_ms=1500), sms_node("text"))
    trigger, step = run_one_step(due_trigger(definition), django_capture_on_commit_callbacks)
    assert (trigger.status, trigger.current_node_id) == ("enqueued", "text")
    assert_due_after(trigger, step, wait)
    # The countdown is measured from the moment the step finished (its log's finished_at).
    remaining = (trigger.available_at - step.finished_at).total_seconds()
    assert published == [(str(trigger.pk), pytest.approx(remaining, abs=1e-6))]
    assert trigger.nudged_at is not None


def test_a_wait_beyond_the_cap_is_left_to_the_sweeper(
    published, django_capture_on_commit_callbacks
):
    wait = timedelta(seconds=4)
    definition = chain(delay_node("long", delay_ms=4000), sms_node("after"))
    trigger, step = run_one_step(due_trigger(definition), django_capture_on_commit_callbacks)
    assert (trigger.status, trigger.current_node_id) == ("enqueued", "after")
    assert_due_after(trigger, step, wait)
    assert published == [] and trigger.nudged_at is None


@pytest.mark.parametrize(("failures_before", "backoff"), [(0, BASE), (1, 2 * BASE), (2, 4 * BASE)])
@pytest.mark.usefixtures("failing_email")
def test_a_retry_backs_off_exponentially_on_a_countdown(
    failures_before, backoff, published, django_capture_on_commit_callbacks
):
    trigger = due_trigger(chain(email_node("mail")), attempts=failures_before)
    trigger, step = run_one_step(trigger, django_capture_on_commit_callbacks)
    assert (trigger.status, trigger.attempts) == ("enqueued", failures_before + 1)
    assert_due_after(trigger, step, backoff)
    remaining = (trigger.available_at - step.finished_at).total_seconds()
    assert published == [(str(trigger.pk), pytest.approx(remaining, abs=1e-6))]


@override_settings(NOTIFLOW_RETRY_BASE_SECONDS=60)
@pytest.mark.usefixtures("failing_email")
def test_a_backoff_beyond_the_cap_is_left_to_the_sweeper(
    published, django_capture_on_commit_callbacks
):
    trigger, step = run_one_step(
        due_trigger(chain(email_node("mail"))), django_capture_on_commit_callbacks
    )
    assert trigger.status == "enqueued"
    assert_due_after(trigger, step, timedelta(seconds=60))
    assert published == [] and trigger.nudged_at is None


def test_held_nudges_are_collected_and_an_error_publishes_them(published):
    """nudges_held (NOTIFLOW_STEPS_PER_TASK): inside the block nothing is published; when the
    block raises, what it collected is published on the way out."""
    with dispatch.nudges_held() as held:
        dispatch._publish_or_hold([dispatch.Nudge("kept", "default", 5)])
    assert [n.trigger_id for n in held] == ["kept"] and published == []

    with pytest.raises(RuntimeError), dispatch.nudges_held():
        dispatch._publish_or_hold([dispatch.Nudge("lost-unless-published", "default", 5)])
        raise RuntimeError("the step crashed")
    assert published == [("lost-unless-published", None)]
    dispatch._publish_or_hold([dispatch.Nudge("after", "default", 5)])
    assert published[-1] == ("after", None)
