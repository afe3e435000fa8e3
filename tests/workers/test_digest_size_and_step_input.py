"""Issue 31 (Low): a digest cannot multiply payloads without bound, and a step log keeps what its
step read, not the whole context (docs/design/workflows.md, "Digest";
docs/design/domain.md, StepExecutionLog)."""

from __future__ import annotations

import pytest
from django.test import override_settings

from tests.factories import chain, email_node
from tests.workers.helpers import run_to_the_end
from tests.workers.test_flow_nodes import PAYLOAD, close_now, digest_definition, runs_of, step
from workers.models import StepExecutionLog
from workflows.semantics import step_input

pytestmark = [pytest.mark.django_db]


@override_settings(
    NOTIFLOW_DIGEST_MAX_BYTES=25_000,
    EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
)
def test_a_digest_hands_its_templates_at_most_its_byte_cap_and_counts_every_run():
    payloads = [{**PAYLOAD, "user": "u1", "item": f"i{n}", "pad": "x" * 10_000} for n in range(5)]
    opener, *joined = [step(run) for run in runs_of(digest_definition(), payloads)]
    assert all(run.status == "completed" for run in joined)
    close_now(opener)

    opener = step(opener)

    summary = opener.vars["digest_batch"]
    assert summary["count"] == 5  # every run, shown or not
    assert [event["item"] for event in summary["events"]] == ["i0", "i1"]  # 2 x 10 KB fit in 25 KB
    step(opener)
    log = StepExecutionLog.objects.filter(trigger=opener, node_id="mail").get()
    # What the mail read: the summary's events (as capped) and count; of its payload, no pad.
    assert len(log.input["vars"]["digest_batch"]["events"]) == 2
    assert log.input["payload"] == {"email": "ada@example.com"}


def test_a_step_log_keeps_what_the_step_read_not_the_whole_context():
    big = {"blob": "b" * 100_000, "name": "Al", "email": "al@example.com", "user": {"id": 7}}
    definition = chain(
        email_node("mail", to="{{ payload.email }}", subject="Hi {{ payload.name }}"),
        email_node("next", to="{{ payload.email }}", body="{{ vars.email_mail.to }}"),
    )
    definition["edges"][0]["when"] = "payload.user.id == 7 or payload.nothing == 1"
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        trigger = run_to_the_end(definition, big)

    assert trigger.status == "completed", trigger.last_error
    first, second = StepExecutionLog.objects.filter(trigger=trigger).order_by("id")
    assert first.input["payload"] == {"email": "al@example.com", "name": "Al", "user": {"id": 7}}
    assert first.input["vars"] == {}
    assert first.input["trigger"]["id"] == str(trigger.pk) and first.input["now"]
    assert second.input["payload"] == {"email": "al@example.com", "name": "Al"}
    assert second.input["vars"] == {"email_mail": {"to": "al@example.com"}}


def test_a_path_read_through_a_list_or_whole_keeps_that_part_whole_and_changes_nothing():
    context = {
        "payload": {"items": [{"name": "a"}], "user": {"id": 1, "pad": "p"}, "other": 1},
        "vars": {"digest_d": {"count": 2, "events": [1, 2]}},
        "trigger": {"id": "t"},
        "workflow": {"key": "k"},
        "now": "2026-01-01T00:00:00+00:00",
    }
    node = email_node(
        "m",
        to="{{ payload.items.first.name }}",
        subject="{{ payload.user }}{{ payload.user.id }}",
        body="{{ vars.digest_d.count }}",
    )
    kept = step_input(node=node, edges=[], context=context)
    assert kept["payload"] == {"items": [{"name": "a"}], "user": {"id": 1, "pad": "p"}}
    assert kept["vars"] == {"digest_d": {"count": 2}}
    assert context["vars"]["digest_d"] == {"count": 2, "events": [1, 2]}  # untouched
    whole = step_input(node=email_node("w", body="{{ payload }}"), edges=[], context=context)
    assert whole["payload"] == context["payload"]
