"""A run's story for the nodes that send nothing (docs/design/deliveries.md, "Explaining a run"): a delay
or an `until` defers, a closed window defers to its opening and an open one passes, a throttle
passes or throttles, a digest's opener defers and its closing and its joiners are digested, a
wait for an event is waiting and passes when it comes; each as its step recorded it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from tests.conftest import unique
from tests.factories import chain, delay_node, digest_node, email_node, throttle_node, window_node
from tests.triggers.test_explain import PAYLOAD, api, locmem, sibling, step, story  # noqa: F401 (fixtures)
from tests.waits.test_wait_event import definition as wait_definition
from tests.workers.helpers import due_trigger
from waits.services import event_receive
from workers.models import Digest

pytestmark = [pytest.mark.django_db]


def test_a_delay_defers_and_the_next_node_is_pending_until_it_is_due(api):  # noqa: F811
    trigger = step(due_trigger(chain(delay_node(duration="15m"), email_node("mail")), PAYLOAD))

    wait, mail = story(api, trigger)

    assert (wait["decision"], wait["rule"]) == ("deferred", "delay")
    assert wait["reason"].startswith("Held by delay 'wait' (15m) until ")
    assert wait["evidence"]["delay_ms"] == 900_000
    assert (mail["decision"], mail["rule"]) == ("pending", "")
    assert mail["reason"].startswith("Not run yet: due at ")


def test_a_delay_until_a_time_defers_to_it(api):  # noqa: F811
    at = datetime(2026, 3, 30, 8, 0, tzinfo=UTC)
    node = delay_node(until="2026-03-30T12:00:00+02:00")
    trigger = step(due_trigger(chain(node, email_node("mail")), PAYLOAD), at=at)

    wait = story(api, trigger)[0]

    assert (wait["decision"], wait["rule"]) == ("deferred", "until")
    assert wait["reason"] == (
        "Held by delay 'wait' (2026-03-30T10:00:00+00:00) until 2026-03-30 10:00 UTC"
    )


def test_a_closed_window_defers_to_its_opening_and_an_open_one_passes(api):  # noqa: F811
    definition = chain(window_node(), email_node("mail"))
    payload = {**PAYLOAD, "tz": "Europe/Berlin"}
    friday_evening = datetime(2026, 3, 27, 19, 0, tzinfo=UTC)
    closed = step(due_trigger(definition, payload), at=friday_evening)
    monday_ten = datetime(2026, 3, 30, 8, 0, tzinfo=UTC)
    opened = step(due_trigger(definition, payload), at=monday_ten)

    held = story(api, closed)[0]
    went = story(api, opened)[0]

    assert (held["decision"], held["rule"]) == ("deferred", "window")
    assert held["reason"] == (
        "Held until send window 'hours' (09:00-18:00 mon-fri, Europe/Berlin) opens at "
        "2026-03-30 09:00 +0200"
    )
    assert held["evidence"]["opens_at"] == "2026-03-30T09:00:00+02:00"
    assert (went["decision"], went["reason"]) == (
        "passed",
        "Send window 'hours' (09:00-18:00 mon-fri, Europe/Berlin) was open: went on at once",
    )


def test_a_throttle_passes_under_its_limit_and_throttles_over_it(api):  # noqa: F811
    definition = chain(throttle_node(limit=1), email_node("mail"))
    user = unique("u")
    first = due_trigger(definition, {**PAYLOAD, "user": user})
    second = sibling(first, {**PAYLOAD, "user": user})
    first, second = step(first), step(second)

    passed = story(api, first)[0]
    throttled = story(api, second)[0]

    assert (passed["decision"], passed["reason"]) == (
        "passed",
        f"Throttle 'cap' let the run through (1 of 1 per 1h for key {user!r})",
    )
    assert (throttled["decision"], throttled["rule"]) == ("throttled", "throttle")
    assert throttled["reason"] == (
        f"Throttled by 'cap': 1 run(s) already went through, its limit of 1 per 1h for key "
        f"{user!r}; only its conditional edges were followed"
    )
    assert throttled["evidence"] == {
        "node": "cap",
        "key": user,
        "limit": 1,
        "window": "1h",
        "count": 1,
    }


def test_a_digest_opener_defers_a_joiner_is_digested_and_the_closing_is_digested(api):  # noqa: F811
    definition = chain(digest_node(), email_node("mail"))
    user = unique("u")
    opener = due_trigger(definition, {**PAYLOAD, "user": user})
    joiner = sibling(opener, {**PAYLOAD, "user": user})
    opener, joiner = step(opener), step(joiner)

    (opened,) = story(api, opener)
    (joined,) = story(api, joiner)
    assert (opened["decision"], opened["rule"]) == ("deferred", "digest")
    assert opened["reason"].startswith(f"Opened the digest of 'batch' for key {user!r}: gathering")
    assert (joined["decision"], joined["rule"]) == ("digested", "digest")
    assert joined["reason"] == (
        f"Gathered into the digest of 'batch' for key {user!r} that run {opener.pk} opened; "
        "this run ends here"
    )

    Digest.objects.filter(opener_id=opener.pk).update(
        closes_at=timezone.now() - timedelta(seconds=1)
    )
    closed = story(api, step(opener))[0]
    assert (closed["decision"], closed["reason"]) == (
        "digested",
        f"Digest of 'batch' for key {user!r} closed with 2 event(s): went on",
    )
    assert [e["decision"] for e in closed["earlier"]] == ["deferred"]


def test_a_wait_for_an_event_is_waiting_then_passes_when_it_comes(api):  # noqa: F811
    trigger = step(due_trigger(wait_definition(), payload={**PAYLOAD, "order_id": "o-9"}))
    assert trigger.status == "waiting"

    (paid,) = story(api, trigger)
    assert (paid["decision"], paid["rule"]) == ("waiting", "wait_event")
    assert paid["reason"].startswith("Waiting for event 'order.paid' until ")
    assert paid["evidence"]["match"] == {"order_id": "o-9"}

    event_receive(name="order.paid", event_id="evt_9", data={"order_id": "o-9"}, actor="test")
    trigger.refresh_from_db()
    paid, thanks = story(api, step(trigger))
    assert (paid["decision"], paid["reason"]) == (
        "passed",
        "Event 'order.paid' came (evt_9): went on",
    )
    assert thanks["node"] == "thanks" and thanks["decision"] == "pending"
