"""The admin preview and the engine run the same semantics (workflows.semantics): for the same
definition and payload they take the same route, render the same text, and fail at the same
node with the same message. A preview that says OK is a run that does not fail on its templates.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import override_settings

from tests.factories import chain, delay_node, email_node, sms_node
from tests.workers.helpers import run_to_the_end
from workers.models import StepExecutionLog
from workflows.preview import workflow_preview

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("quiet_providers"),
]


@pytest.fixture
def quiet_providers():
    with override_settings(
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
        NOTIFLOW_SMS_BACKEND="null",
    ):
        yield


def branching() -> dict[str, Any]:
    """email -> (sms when there is a phone, and a second email to VIPs, judged on the output)."""
    definition = chain(
        email_node("mail", subject="Hi {{ payload.name }}", body="For {{ payload.email }}"),
        sms_node("text", body="Hi {{ payload.name }}"),
    )
    definition["nodes"].append(
        email_node("vip", subject="VIP {{ payload.name }}", body="Thanks {{ vars.email_mail.to }}")
    )
    definition["edges"] = [
        {"from": "mail", "to": "vip", "when": 'vars.email_mail.to == "vip@example.com"'},
        {"from": "mail", "to": "text", "when": 'payload.phone and payload.phone != ""'},
    ]
    return definition


CASES = {
    "all_sent": (branching(), {"email": "a@example.com", "name": "Al", "phone": "+15550100"}),
    "no_phone_ends_after_mail": (branching(), {"email": "a@example.com", "name": "Al"}),
    "edge_judged_on_the_output": (branching(), {"email": "vip@example.com", "name": "Vi"}),
    "missing_variable": (branching(), {"email": "a@example.com", "phone": "+15550100"}),
    "not_an_email_address": (branching(), {"email": "nobody", "name": "No"}),
    "empty_sms_recipient": (
        chain(delay_node("wait", delay_ms=10), sms_node("text", to="{{ payload.phone }}")),
        {"phone": " ", "name": "Em"},
    ),
    "undefined_variable_in_a_later_node": (
        chain(email_node("mail"), sms_node("text", body="{{ vars.email_mail.nope }}")),
        {"email": "a@example.com", "name": "La", "phone": "+15550100"},
    ),
    "condition_that_cannot_be_evaluated": (
        {
            **chain(email_node("mail"), sms_node("text")),
            "edges": [{"from": "mail", "to": "text", "when": "payload.count > payload.name"}],
        },
        {"email": "a@example.com", "name": "Co", "phone": "+15550100", "count": 3},
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_preview_and_engine_agree(case):
    definition, payload = CASES[case]
    trigger = run_to_the_end(definition, payload)
    preview = workflow_preview(
        definition=definition,
        payload=payload,
        workflow={"key": trigger.workflow.key, "name": trigger.workflow.name, "version": 1},
    )
    visited = list(
        StepExecutionLog.objects.filter(trigger=trigger)
        .order_by("started_at")
        .values_list("node_id", flat=True)
    )

    # The route: the nodes the run visited are the preview's route, up to where the run stopped.
    assert preview.route[: len(visited)] == visited
    nodes = {node.node_id: node for node in preview.nodes}
    if trigger.status == "completed":
        assert preview.route == visited and not preview.route_error
        assert all(nodes[node_id].ok for node_id in visited)
    else:
        failed_at = visited[-1]
        problem = nodes[failed_at].error or preview.route_error
        assert trigger.status == "failed" and problem, f"the preview missed: {trigger.last_error}"
        assert trigger.last_error.endswith(problem)
        assert all(nodes[node_id].ok for node_id in visited[:-1])

    # The text: every email the run sent is what the preview rendered for its node.
    for sent in mail.outbox:
        node_id = sent.extra_headers["X-Notiflow-Idempotency-Key"].split(":")[1]
        assert sent.subject == nodes[node_id].value("subject")
        if "vars." not in next(n for n in definition["nodes"] if n["id"] == node_id)["body"]:
            assert sent.body == nodes[node_id].value("body")


def test_every_case_is_exercised():
    # The table above covers both endings and each kind of failure; keep it that way.
    endings = {case: run_to_the_end(*CASES[case]).status for case in CASES}
    assert {"completed", "failed"} <= set(endings.values())
