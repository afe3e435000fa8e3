"""The admin preview and the engine run the same semantics (workflows.semantics): for the same
definition and payload they take the same route, render the same text, and fail at the same
node with the same message. A preview that says OK is a run that does not fail on its templates.
Every registered node type (workflows.nodes) is in the table.
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import override_settings
from django.utils import timezone

from tests.factories import (
    chain,
    delay_node,
    digest_node,
    email_node,
    push_node,
    slack_node,
    sms_node,
    teams_node,
    throttle_node,
    webpush_node,
    window_node,
)
from tests.support.catalogs import catalogs  # noqa: F401 (fixture)
from tests.support.layouts import layouts  # noqa: F401 (fixture)
from tests.support.waits import waits_time_out
from tests.workers.helpers import due_trigger
from triggers.models import TERMINAL_STATUSES, TriggerInstance
from waits.models import EventWait
from workers.models import StepExecutionLog
from workers.providers.push import vapid_key_pair
from workers.services.engine import step_execute
from workflows.nodes import NODE_TYPES
from workflows.preview import workflow_preview

pytestmark = [
    pytest.mark.django_db,
    # Every case may translate (tests/support/catalogs.py), lay out and render partials
    # (tests/support/layouts.py): the engine and the preview read the same content.
    pytest.mark.usefixtures("quiet_providers", "catalogs", "layouts"),
]


@pytest.fixture
def quiet_providers():
    # The push channels are configured (their nodes are runnable) but no case reaches a push
    # service: their cases fail on what the node renders, before any address is read.
    with override_settings(
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
        NOTIFLOW_SMS_BACKEND="null",
        NOTIFLOW_VAPID_PRIVATE_KEY=vapid_key_pair()[0],
        NOTIFLOW_VAPID_SUBJECT="mailto:ops@example.com",
        NOTIFLOW_FCM_SERVICE_ACCOUNT_JSON='{"project_id": "p"}',
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


def open_now() -> dict[str, Any]:
    """A send window open now (and for the next hour) in UTC, every day."""
    hour = datetime.now(UTC).hour
    start, end = f"{(hour - 1) % 24:02d}:00", f"{(hour + 2) % 24:02d}:00"
    every_day = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    return window_node("hours", timezone="UTC", days=every_day, start=start, end=end)


def gathered() -> dict[str, Any]:
    """A digest of one second, then an email that lists what it gathered."""
    body = "{% for e in vars.digest_batch.events %}{{ e.name }}{% endfor %}"
    return chain(digest_node("batch", window="1s"), email_node("mail", body=body))


def wait_for_order(node_id: str, order: str) -> dict[str, Any]:
    return {
        "id": node_id,
        "type": "wait_event",
        "event": "order.paid",
        "match": {"order_id": order},
        "timeout": "1h",
    }


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
    "inside_the_window": (
        chain(open_now(), email_node("mail")),
        {"email": "a@example.com", "name": "Wi"},
    ),
    "throttle_lets_the_first_through": (
        chain(throttle_node("cap", limit=1), email_node("mail")),
        {"email": "a@example.com", "name": "Th", "user": "u1"},
    ),
    "throttle_key_renders_empty": (
        chain(throttle_node("cap", key="{{ payload.user }}"), email_node("mail")),
        {"email": "a@example.com", "name": "Th", "user": " "},
    ),
    "wait_event_then_mail": (
        chain(wait_for_order("paid", "{{ payload.order }}"), email_node("mail")),
        {"email": "a@example.com", "name": "Wa", "order": 7},
    ),
    "wait_event_match_undefined": (
        chain(wait_for_order("paid", "{{ payload.nope }}"), email_node("mail")),
        {"email": "a@example.com", "name": "Wa"},
    ),
    "digest_of_one_run": (gathered(), {"email": "a@example.com", "name": "Di", "user": "u2"}),
    "webpush_title_renders_empty": (
        chain(email_node("mail"), webpush_node("browser", title="{{ payload.title }}")),
        {"email": "a@example.com", "name": "We", "order": 7, "title": " "},
    ),
    "push_link_is_not_https": (
        chain(push_node("phone", url="{{ payload.link }}")),
        {"name": "Pu", "order": 7, "link": "javascript:alert(1)"},
    ),
    # The chat types check their JSON after rendering, before any provider is called: a value
    # inserted without `| json` breaks it, in the preview as in the run.
    "slack_blocks_render_invalid_json": (
        chain(
            email_node("mail"),
            slack_node(
                webhook_url="https://hooks.slack.example/services/T0/B0/secret",
                blocks='[{"type": "section", "text": "{{ payload.name }}"}]',
            ),
        ),
        {"email": "a@example.com", "name": 'Sl "ack"'},
    ),
    "teams_card_is_not_an_adaptive_card": (
        chain(
            teams_node(
                webhook_url="https://example.webhook.office.example/x",
                card='{"type": "{{ payload.name }}", "body": []}',
            )
        ),
        {"name": "Te"},
    ),
    # Translated in the workflow's default locale, a plural chosen by French's rule (0 is `one`)
    # and a date formatted in French; then a key (computed: saving could not check it) that no
    # catalog of the chain has.
    "translated_into_french": (
        {
            **chain(
                email_node(
                    "mail",
                    subject='{{ "welcome.subject" | t: name: payload.name }}',
                    body='{{ "cart.items" | t: count: payload.n }}, {{ payload.due | date: "long" }}',
                ),
                sms_node("text", body="{{ payload.which | t }}"),
            ),
            "default_locale": "fr",
        },
        {
            "email": "a@example.com",
            "name": "Fr",
            "n": 0,
            "due": "2026-03-01",
            "phone": "+15550100",
            "which": "welcome.gone",
        },
    ),
    # A fetch's URL that does not render fails before any request, in the preview as in the run.
    "fetch_url_undefined": (
        chain(
            {"id": "order", "type": "fetch", "url": "https://shop.example.com/{{ payload.nope }}"},
            email_node("mail"),
        ),
        {"email": "a@example.com", "name": "Fe"},
    ),
    # An email in the workflow's default layout (its footer a partial that translates), its
    # body rendering a partial; then one whose own layout reads what the payload lacks.
    "laid_out_with_partials": (
        {
            **chain(
                email_node("mail", body='{% render "greeting" %}\nSee you'),
                email_node("nologo", layout="logo"),
            ),
            "default_layout": "brand",
            "default_locale": "fr",
        },
        {"email": "a@example.com", "name": "Ada"},
    ),
    "inapp_link_that_is_not_one": (
        chain(
            {
                "id": "bell",
                "type": "inapp",
                "title": "Hi {{ payload.name }}",
                "body": "b",
                "action_url": "javascript:{{ payload.name }}",
            }
        ),
        {"name": "In"},
    ),
}


def run_through(definition: dict[str, Any], payload: dict[str, Any]) -> TriggerInstance:
    """Step the engine in-process until the run is terminal, each next step made due at once;
    a node that waits at itself (a digest's window) is stepped again until its window is over
    (the database's clock), within a deadline."""
    trigger = due_trigger(definition, payload=payload)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        at = trigger.current_node_id
        step_execute(trigger_id=str(trigger.pk), worker_id="w")
        trigger.refresh_from_db()
        if trigger.status in TERMINAL_STATUSES:
            return trigger
        earlier = timezone.now() - timedelta(hours=1)
        if trigger.status == "waiting":  # a wait_event: its timeout now, through the sweeper's
            EventWait.objects.filter(trigger_id=trigger.pk).update(deadline=earlier)
            waits_time_out()
        TriggerInstance.objects.filter(pk=trigger.pk).update(available_at=earlier)
        if trigger.current_node_id == at:
            time.sleep(0.1)
    raise AssertionError(f"run did not end: {trigger.status} at {trigger.current_node_id}")


@pytest.mark.parametrize("case", list(CASES))
def test_preview_and_engine_agree(case):
    definition, payload = CASES[case]
    trigger = run_through(definition, payload)
    preview = workflow_preview(
        definition=definition,
        payload=payload,
        workflow={"key": trigger.workflow.key, "name": trigger.workflow.name, "version": 1},
    )
    logged = list(
        StepExecutionLog.objects.filter(trigger=trigger)
        .order_by("id")  # a step's started_at is the database's now(): still in a test
        .values_list("node_id", flat=True)
    )
    # A node that waited at itself (a digest's opener) is one stop of the route.
    visited = [n for i, n in enumerate(logged) if i == 0 or logged[i - 1] != n]

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

    if case == "translated_into_french":
        assert (nodes["mail"].value("subject"), nodes["mail"].value("body")) == (
            "Bienvenue, Fr",
            "0 article, 1 mars 2026",
        )
        assert "'welcome.gone' is in no catalog of the locale chain fr -> en" in problem
    if case == "laid_out_with_partials":
        assert nodes["mail"].value("body") == "Hello Ada,\nSee you\n-- \nExemple SA"
        assert "Hello Ada,<br>\nSee you<small>Exemple SA</small>" in nodes["mail"].value("html")
        assert problem == "node 'nologo': layout 'logo': payload.logo is undefined"
    # The text: every email the run sent is what the preview rendered for its node.
    for sent in mail.outbox:
        node_id = sent.extra_headers["X-Notiflow-Idempotency-Key"].split(":")[1]
        assert sent.subject == nodes[node_id].value("subject")
        if "vars." not in next(n for n in definition["nodes"] if n["id"] == node_id)["body"]:
            assert sent.body == nodes[node_id].value("body")
        html = [body for body, kind in sent.alternatives if kind == "text/html"]
        assert html == ([nodes[node_id].value("html")] if nodes[node_id].value("html") else [])


def test_every_case_is_exercised():
    # The table above covers both endings and each kind of failure; keep it that way. Told from
    # the previews: each case's run ends as its preview says (test_preview_and_engine_agree).
    def ending(definition: dict[str, Any], payload: dict[str, Any]) -> str:
        workflow = {"key": "table", "name": "Table", "version": 1}
        preview = workflow_preview(definition=definition, payload=payload, workflow=workflow)
        route_ok = all(node.ok for node in preview.nodes if node.node_id in preview.route)
        return "completed" if route_ok and not preview.route_error else "failed"

    endings = {case: ending(*CASES[case]) for case in CASES}
    assert {"completed", "failed"} <= set(endings.values())


def test_every_registered_node_type_is_in_the_table():
    used = {node["type"] for definition, _ in CASES.values() for node in definition["nodes"]}
    assert set(NODE_TYPES) <= used


def test_a_chat_run_sends_what_the_preview_rendered(chat_server):
    """The table's chat cases fail before sending; this one sends, to the stand-ins."""
    slack_path, teams_path = f"/slack/ok/{uuid.uuid4().hex}", f"/teams/ok/{uuid.uuid4().hex}"
    blocks = '[{"type": "section", "text": {"type": "mrkdwn", "text": {{ payload.name | json }}}}]'
    definition = chain(
        slack_node("chat", webhook_url=chat_server.url(slack_path), blocks=blocks),
        teams_node(
            "team", webhook_url=chat_server.url(teams_path), text="{{ vars.slack_chat.to }}"
        ),
    )
    payload = {"name": 'Ch "at"'}
    trigger = run_through(definition, payload)
    assert trigger.status == "completed", trigger.last_error
    preview = workflow_preview(
        definition=definition,
        payload=payload,
        workflow={"key": trigger.workflow.key, "name": trigger.workflow.name, "version": 1},
    )
    nodes = {node.node_id: node for node in preview.nodes}
    assert preview.route == ["chat", "team"] and all(node.ok for node in nodes.values())
    (slack,) = chat_server.received(path=slack_path)
    assert slack.body["text"] == nodes["chat"].value("text")
    assert slack.body["blocks"] == json.loads(nodes["chat"].value("blocks") or "")
    (teams,) = chat_server.received(path=teams_path)
    # The preview's placeholder for vars.slack_chat.to is the redacted URL the run records.
    sent_text = teams.body["attachments"][0]["content"]["body"][0]["text"]
    assert sent_text == nodes["team"].value("text") == trigger.vars["slack_chat"]["to"]
