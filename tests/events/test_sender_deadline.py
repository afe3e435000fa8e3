"""One attempt has a total deadline (issue 31): a receiver that answers a byte at a time, each
byte well inside any per-read timeout, still ends the attempt at NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from events.services.sender import post_signed
from events.signing import secret_generate
from tests.support.receiver import Receiver

# The webhook tests' cleanup (tests/events/conftest.py) reads the test database.
pytestmark = pytest.mark.django_db


@pytest.fixture
def drip_receiver() -> Iterator[Receiver]:
    """A receiver whose /drip/ answer takes ~12 s, one byte every 0.2 s."""
    server = Receiver(drip_seconds=0.2)
    server.start()
    yield server
    server.stop()


def test_a_receiver_dripping_its_answer_is_cut_off_at_the_total_deadline(settings, drip_receiver):
    settings.NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS = 1
    started = time.monotonic()
    result = post_signed(
        url=drip_receiver.url("/drip/slow"), secret=secret_generate(), message_id="m", body=b"{}"
    )
    elapsed = time.monotonic() - started
    assert result.status_code is None
    assert result.error == "timed out: no complete answer within the 1 s deadline"
    assert 0.9 <= elapsed < 2, elapsed
    assert 900 <= result.duration_ms < 2000
    assert len(drip_receiver.received("/drip/")) == 1  # it did get the request


def test_an_answer_inside_the_deadline_is_not_disturbed_by_it(settings, receiver):
    settings.NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS = 1
    result = post_signed(
        url=receiver.url("/ok/deadline"), secret=secret_generate(), message_id="m", body=b"{}"
    )
    assert result.status_code == 200 and result.error == ""
    # The watchdog stops with its attempt: the next one, on a new connection, is untouched.
    again = post_signed(
        url=receiver.url("/ok/deadline2"), secret=secret_generate(), message_id="n", body=b"{}"
    )
    assert again.status_code == 200
