"""Timing and flow-control nodes in-process: the engine's steps with the clock the test sets
(window, delay until), and the throttle and digest state they keep in PostgreSQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
from django.core import mail
from django.test import override_settings
from django.utils import timezone

from tests.factories import (
    WorkflowFactory,
    chain,
    digest_node,
    email_node,
    throttle_node,
    window_node,
)
from tests.triggers.test_fanout import published  # noqa: F401 (fixture)
from tests.workers.helpers import due_trigger, node_output
from triggers.models import TriggerInstance
from triggers.state import trigger_cancel, trigger_delete
from workers.models import Digest, DigestEntry, StepExecutionLog, ThrottlePass
from workers.services.engine import step_execute
from workers.services.flow import digest_reach, flow_state_prune, throttle_take

pytestmark = [pytest.mark.django_db]


@pytest.fixture(autouse=True)
def locmem_email():
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        yield


def step(trigger: TriggerInstance, *, at: datetime | None = None) -> TriggerInstance:
    """One step of `trigger`, made due first; `at` is the step's clock (the database's now()
    as the claim read it: engine.StepClock)."""
    TriggerInstance.objects.filter(pk=trigger.pk).update(
        available_at=timezone.now() - timedelta(days=400)
    )
    if at is None:
        step_execute(trigger_id=str(trigger.pk), worker_id="w")
    else:
        with mock.patch("workers.services.engine.StepClock.now", return_value=at):
            step_execute(trigger_id=str(trigger.pk), worker_id="w")
    trigger.refresh_from_db()
    return trigger


def due_after(trigger: TriggerInstance) -> timedelta:
    """How long after its release the run is due: the wait the release added to the database's
    clock (docs/design/rules.md, rule 15), which stamped `updated_at` in the same statement."""
    return trigger.available_at - trigger.updated_at


def last_log(trigger: TriggerInstance) -> StepExecutionLog:
    return StepExecutionLog.objects.filter(trigger=trigger).order_by("-id")[0]


def runs_of(definition, payloads) -> list[TriggerInstance]:
    """Triggers of one workflow, each due at its entry node."""
    first = due_trigger(definition, payload=payloads[0])
    others = [
        TriggerInstance.objects.create(
            workflow=first.workflow,
            workflow_version=first.workflow_version,
            idempotency_key=f"k{index}",
            payload=payload,
            status="enqueued",
            current_node_id=first.current_node_id,
            available_at=first.available_at,
        )
        for index, payload in enumerate(payloads[1:])
    ]
    return [first, *others]


OFFICE_HOURS = window_node("office")
PAYLOAD = {"email": "ada@example.com", "name": "Ada", "tz": "Europe/Berlin"}


def test_a_window_step_outside_hours_waits_for_the_opening_in_the_recipients_zone():
    trigger = due_trigger(chain(OFFICE_HOURS, email_node("mail")), payload=PAYLOAD)
    friday_evening = datetime(2026, 3, 27, 19, 0, tzinfo=UTC)  # 20:00 CET, Friday

    trigger = step(trigger, at=friday_evening)

    # Monday 09:00 CEST: the clocks went forward on Sunday.
    assert trigger.status == "enqueued" and trigger.current_node_id == "mail"
    assert due_after(trigger) == datetime(2026, 3, 30, 7, 0, tzinfo=UTC) - friday_evening
    assert last_log(trigger).output["opens_at"] == "2026-03-30T09:00:00+02:00"
    assert mail.outbox == []


def test_a_window_step_inside_hours_goes_on_at_once():
    trigger = due_trigger(chain(OFFICE_HOURS, email_node("mail")), payload=PAYLOAD)
    monday_ten = datetime(2026, 3, 30, 8, 0, tzinfo=UTC)  # 10:00 CEST

    trigger = step(trigger, at=monday_ten)

    assert trigger.current_node_id == "mail" and due_after(trigger) == timedelta(0)
    assert node_output(last_log(trigger)) == {
        "timezone": "Europe/Berlin",
        "open": True,
        "delay_ms": 0,
    }


def test_an_unknown_zone_fails_the_run_permanently_naming_it():
    trigger = due_trigger(chain(OFFICE_HOURS, email_node("mail")), payload={**PAYLOAD, "tz": "X/Y"})
    trigger = step(trigger)
    assert trigger.status == "failed" and trigger.attempts == 1
    assert "field 'timezone': 'X/Y' is not an IANA time zone" in trigger.last_error


def test_a_delay_until_waits_for_that_time_and_a_bad_value_fails_naming_it():
    later = {"id": "later", "type": "delay", "until": "{{ payload.at }}"}
    trigger = due_trigger(
        chain(later, email_node("mail")), payload={**PAYLOAD, "at": "2026-12-24T18:00:00+01:00"}
    )
    trigger = step(trigger, at=datetime(2026, 12, 1, tzinfo=UTC))
    assert due_after(trigger) == datetime(2026, 12, 24, 17, tzinfo=UTC) - datetime(
        2026, 12, 1, tzinfo=UTC
    )

    bad = due_trigger(chain(later, email_node("mail")), payload={**PAYLOAD, "at": "Christmas"})
    bad = step(bad)
    assert bad.status == "failed" and "'Christmas' is not an ISO-8601 timestamp" in bad.last_error


THROTTLE = throttle_node()


def throttled_definition():
    return {
        "entry_node_id": "cap",
        "nodes": [
            THROTTLE,
            email_node("mail"),
            email_node("sorry", subject="Later, {{ payload.name }}"),
        ],
        "edges": [
            {"from": "cap", "to": "mail"},
            {"from": "cap", "to": "sorry", "when": "vars.throttle_cap.throttled"},
        ],
    }


def test_a_throttle_lets_limit_runs_through_and_sends_the_rest_down_the_conditional_edge():
    payloads = [{**PAYLOAD, "user": "u1"}] * 4 + [{**PAYLOAD, "user": "u2"}]
    runs = [step(run) for run in runs_of(throttled_definition(), payloads)]

    assert [run.current_node_id for run in runs] == ["mail", "mail", "mail", "sorry", "mail"]
    assert [run.vars["throttle_cap"] for run in runs] == [
        {"throttled": False, "count": 1},
        {"throttled": False, "count": 2},
        {"throttled": False, "count": 3},
        {"throttled": True, "count": 3},
        {"throttled": False, "count": 1},
    ]


def test_a_throttled_run_without_a_conditional_edge_ends_completed():
    payloads = [{**PAYLOAD, "user": "u1"}] * 2
    definition = chain({**THROTTLE, "limit": 1}, email_node("mail"))
    passed, throttled = [step(run) for run in runs_of(definition, payloads)]
    assert passed.current_node_id == "mail"
    assert throttled.status == "completed" and throttled.vars["throttle_cap"]["throttled"]


def test_a_throttle_step_run_again_passes_again_without_counting_twice():
    workflow = WorkflowFactory(definition=chain(THROTTLE, email_node("mail")))
    take = {
        "workflow_id": workflow.pk,
        "node_id": "cap",
        "key": "k",
        "limit": 2,
        "window": timedelta(hours=1),
    }
    ids = ["00000000-0000-0000-0000-00000000000" + str(n) for n in (1, 2, 3)]
    assert throttle_take(trigger_id=ids[0], **take).count == 1
    assert throttle_take(trigger_id=ids[0], **take).passed  # the same run again
    assert throttle_take(trigger_id=ids[1], **take).count == 2
    assert not throttle_take(trigger_id=ids[2], **take).passed
    assert ThrottlePass.objects.filter(workflow=workflow).count() == 2


DIGEST = digest_node()


def digest_definition():
    return chain(
        DIGEST,
        email_node(
            "mail",
            subject="{{ vars.digest_batch.count }} updates",
            body="{% for e in vars.digest_batch.events %}{{ e.item }};{% endfor %}",
        ),
    )


def close_now(run: TriggerInstance) -> None:
    """The run's digest window ends now (instead of in ten minutes)."""
    Digest.objects.filter(opener_id=run.pk).update(closes_at=timezone.now() - timedelta(seconds=1))


def test_a_digest_gathers_the_runs_with_one_key_and_its_opener_sends_them_once():
    payloads = [{**PAYLOAD, "user": "u1", "item": f"i{n}"} for n in range(3)]
    payloads.append({**PAYLOAD, "user": "u2", "item": "other"})
    opener, second, third, other = [step(run) for run in runs_of(digest_definition(), payloads)]

    # The opener waits at the node for the window; the others joined it and ended.
    assert opener.status == "enqueued" and opener.current_node_id == "batch"
    digest = Digest.objects.get(opener_id=opener.pk)
    assert abs(opener.available_at - digest.closes_at) < timedelta(seconds=5)  # one clock
    for joined in (second, third):
        assert joined.status == "completed"
        assert node_output(last_log(joined)) == {
            "joined": str(digest.pk),
            "opened_by": str(opener.pk),
        }
    assert other.current_node_id == "batch" and Digest.objects.get(opener_id=other.pk)

    close_now(opener)
    opener = step(opener)
    summary = opener.vars["digest_batch"]
    assert summary["count"] == 3 and summary["id"] == str(digest.pk)
    assert [event["item"] for event in summary["events"]] == ["i0", "i1", "i2"]
    assert summary["first_at"] <= summary["last_at"]
    opener = step(opener)
    assert opener.status == "completed"
    (sent,) = mail.outbox
    assert sent.subject == "3 updates" and sent.body == "i0;i1;i2;"


def test_a_run_arriving_after_the_window_opens_the_next_digest():
    payloads = [{**PAYLOAD, "user": "u1", "item": f"i{n}"} for n in range(2)]
    first, late = runs_of(digest_definition(), payloads)
    first = step(first)
    close_now(first)
    late = step(late)  # the window is over (its opener has not closed it yet): not joined
    assert late.status == "enqueued" and Digest.objects.get(opener_id=late.pk)
    first = step(first)
    assert first.vars["digest_batch"]["count"] == 1


def test_a_digest_step_run_again_finds_what_its_first_run_decided():
    opener, joiner = runs_of(digest_definition(), [{"n": 1}, {"n": 2}])
    reach = {
        "workflow_id": opener.workflow_id,
        "node_id": "batch",
        "key": "u1",
        "window": timedelta(minutes=10),
    }
    opened = digest_reach(trigger_id=opener.pk, payload_json=json.dumps({"n": 1}), **reach)
    joined = digest_reach(trigger_id=joiner.pk, payload_json=json.dumps({"n": 2}), **reach)
    again = digest_reach(trigger_id=joiner.pk, payload_json=json.dumps({"n": 2}), **reach)
    assert opened.opener and not joined.opener and not again.opener
    assert joined.digest_id == again.digest_id == opened.digest_id
    assert DigestEntry.objects.filter(digest_id=opened.digest_id).count() == 2

    Digest.objects.filter(pk=opened.digest_id).update(
        closes_at=timezone.now() - timedelta(seconds=1)
    )
    closed = digest_reach(trigger_id=opener.pk, payload_json="{}", **reach)
    closed_again = digest_reach(trigger_id=opener.pk, payload_json="{}", **reach)
    assert closed.summary == closed_again.summary
    assert closed.summary is not None and closed.summary["count"] == 2
    assert [e["n"] for e in closed.summary["events"]] == [1, 2]


@pytest.mark.parametrize("action", [trigger_cancel, trigger_delete])
def test_nothing_joins_the_digest_of_a_cancelled_or_deleted_opener(action):
    payloads = [{**PAYLOAD, "user": "u1", "item": f"i{n}"} for n in range(3)]
    opener, joined, late = runs_of(digest_definition(), payloads)
    opener, joined = step(opener), step(joined)
    assert joined.status == "completed"
    action(trigger_id=opener.pk, reason="changed my mind", actor="test")

    late = step(late)  # the window is still open, but nobody would send that digest
    assert late.status == "enqueued" and Digest.objects.get(opener_id=late.pk)
    close_now(late)
    assert step(late).vars["digest_batch"]["count"] == 1


def test_two_digest_nodes_in_one_workflow_each_gather_their_own_runs():
    definition = chain(
        DIGEST,
        {"id": "team", "type": "digest", "key": "{{ payload.team }}", "window": "10m"},
        email_node("mail", body="{{ vars.digest_team.count }} of {{ vars.digest_batch.count }}"),
    )
    payloads = [
        {**PAYLOAD, "user": user, "team": "t", "item": str(n)}
        for n, user in enumerate(["u1", "u1", "u2", "u2", "u2"])
    ]
    runs = [step(run) for run in runs_of(definition, payloads)]
    openers = [run for run in runs if run.status == "enqueued"]
    assert len(openers) == 2  # one digest per user at the first node
    for run in openers:
        close_now(run)
    openers = [step(run) for run in openers]
    assert sorted(run.vars["digest_batch"]["count"] for run in openers) == [2, 3]
    # Both openers reach the team digest: the first opens it, the second joins.
    openers = [step(run) for run in openers]
    (team_opener,) = [run for run in openers if run.status == "enqueued"]
    close_now(team_opener)
    team_opener = step(team_opener)
    assert team_opener.vars["digest_team"]["count"] == 2
    team_opener = step(team_opener)
    assert team_opener.status == "completed" and len(mail.outbox) == 1


def test_the_sweeper_prunes_throttle_passes_past_their_window_and_old_digests():
    workflow = WorkflowFactory(definition=digest_definition())
    now = timezone.now()
    for n, expires in enumerate([now - timedelta(seconds=1), now + timedelta(hours=1)]):
        ThrottlePass.objects.create(
            workflow=workflow,
            node_id="cap",
            key="k",
            trigger_id=f"00000000-0000-0000-0000-00000000001{n}",
            passed_at=now,
            expires_at=expires,
        )
    for n, closes in enumerate([now - timedelta(days=8), now - timedelta(days=6)]):
        digest = Digest.objects.create(
            id=f"00000000-0000-0000-0000-00000000002{n}",
            workflow=workflow,
            node_id="batch",
            key="k",
            opener_id=f"00000000-0000-0000-0000-00000000003{n}",
            opened_at=closes,
            closes_at=closes,
        )
        DigestEntry.objects.create(
            digest=digest,
            trigger_id=digest.opener_id,
            node_id="batch",
            payload={},
            joined_at=closes,
        )
    assert flow_state_prune() == (1, 1, 1)
    assert ThrottlePass.objects.count() == 1 and Digest.objects.count() == 1
    assert DigestEntry.objects.count() == 1


def test_the_admin_shows_each_digest_with_the_runs_it_gathered(admin_client):
    payloads = [{**PAYLOAD, "user": "u1", "item": f"item-{n}"} for n in range(3)]
    opener, *_ = [step(run) for run in runs_of(digest_definition(), payloads)]
    digest = Digest.objects.get(opener_id=opener.pk)

    listing = admin_client.get("/admin/workers/digest/").content.decode()
    assert "gathering" in listing and str(opener.pk)[:8] in listing

    page = admin_client.get(f"/admin/workers/digest/{digest.pk}/change/").content.decode()
    assert page.count("item-") == 3 and "Runs gathered, oldest first" in page
    assert admin_client.post(f"/admin/workers/digest/{digest.pk}/delete/").status_code == 403


# --- a throttle's or digest's key defaults to the run's recipient (issue 44) ---------------------


def test_a_digest_without_a_key_gathers_a_topics_runs_per_recipient(published):  # noqa: F811
    """A topic's fan-out into a digest whose node names no key: each subscriber's runs gather
    under their own id, across two fan-outs, without the workflow saying so."""
    from recipients.models import Recipient, Topic, TopicSubscription
    from tests.conftest import unique
    from tests.triggers.test_fanout import run_to_the_end
    from triggers.fanout import FanoutRequest, fanout_start

    workflow = WorkflowFactory(
        definition=chain({"id": "batch", "type": "digest", "window": "10m"}, email_node("mail"))
    )
    topic = Topic.objects.create(key=unique("project"))
    people = [unique("user") for _ in range(2)]
    Recipient.objects.bulk_create([Recipient(key=k, email=f"{k}@example.com") for k in people])
    TopicSubscription.objects.bulk_create(
        [TopicSubscription(topic=topic, recipient_id=k) for k in people]
    )
    for comment in ("c1", "c2"):
        request = FanoutRequest(
            workflow_key=workflow.key,
            idempotency_key=comment,
            topic_key=topic.key,
            payload={"comment": comment},
        )
        fanout, _ = fanout_start(request)
        run_to_the_end(fanout.pk)
    runs = list(TriggerInstance.objects.filter(workflow=workflow).order_by("created_at", "id"))
    assert len(runs) == 4
    for run in runs:
        step(run)
    digests = {d.key: d for d in Digest.objects.filter(workflow=workflow)}
    assert set(digests) == set(people)
    for person, digest in digests.items():
        entries = DigestEntry.objects.filter(digest=digest).values_list("trigger_id", flat=True)
        gathered = TriggerInstance.objects.filter(pk__in=list(entries))
        assert sorted(run.recipient for run in gathered) == [person, person]


def test_a_throttle_without_a_key_on_a_run_without_a_recipient_fails_naming_key():
    run = step(due_trigger(chain({"id": "cap", "type": "throttle", "limit": 1, "window": "1h"})))
    assert run.status == "failed"
    assert "'key' is not set and the run has no recipient" in run.last_error


def test_the_preview_counts_a_keyless_throttle_by_the_sample_recipient():
    from workflows.preview import workflow_preview

    definition = chain({"id": "cap", "type": "throttle", "limit": 1, "window": "1h"})
    preview = workflow_preview(
        definition=definition, payload={}, workflow={"key": "w"}, recipient={"id": "ada"}
    )
    assert [field.value for field in preview.nodes[0].fields] == ["ada"]
