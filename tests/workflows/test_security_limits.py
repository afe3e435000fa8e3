"""Attacks on the definition and on rendering, each reproduced and refused (docs/security/content.md):
oversized workflows, templates that never end or grow without bound, HTML injection, header
injection, absurd durations, fields nobody reads."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings

from tests.factories import chain, delay_node, email_node, sms_node
from workflows import templating
from workflows.semantics import RenderError, node_render
from workflows.templating import TemplateError, template_render
from workflows.validation import workflow_validate

CONTEXT = {"payload": {"name": "Ann", "email": "ann@example.com", "n": 2}, "vars": {}}


def problems(definition) -> dict[str, str]:
    return {error.field: error.message for error in workflow_validate(definition)}


# --- sizes, before anything is parsed ------------------------------------------------------------


def test_a_huge_template_is_refused_without_being_parsed(monkeypatch):
    parsed = []
    monkeypatch.setattr(templating, "_parse", lambda *a: parsed.append(a))
    definition = chain(email_node("mail", body="{{ payload.name }}" * 120_000))
    definition["entry_node_id"] = "nowhere"  # invalid twice over: nothing may be kept
    cached = templating.PARSED.size_bytes

    found = problems(definition)

    assert "NOTIFLOW_WORKFLOW_MAX_BYTES" in found["definition"]
    assert parsed == [] and templating.PARSED.size_bytes == cached


def test_each_template_and_the_node_count_have_a_ceiling():
    long_body = "x" * 64_001
    assert (
        "NOTIFLOW_TEMPLATE_MAX_BYTES"
        in problems(chain(email_node("m", body=long_body)))["nodes[0].body"]
    )
    many = chain(*[delay_node(f"d{i}", delay_ms=1) for i in range(201)])
    assert "more than 200 (NOTIFLOW_WORKFLOW_MAX_NODES)" in problems(many)["nodes"]


@override_settings(NOTIFLOW_TEMPLATE_CACHE_BYTES=10_000)
def test_the_parsed_template_cache_is_bounded_by_bytes():
    templating.PARSED.clear()
    for i in range(50):
        template_render(f"{{{{ payload.name }}}} {i} " + "y" * 1000, CONTEXT)
    assert 0 < templating.PARSED.size_bytes <= 10_000
    # A template bigger than the whole cache renders, and is not kept.
    template_render("z" * 20_000, CONTEXT)
    assert templating.PARSED.size_bytes <= 10_000


def test_validation_leaves_nothing_in_the_cache():
    templating.PARSED.clear()
    assert problems(chain(email_node("mail", subject="Hi {{ payload.name }}"))) == {}
    assert templating.PARSED.size_bytes == 0


# --- render budgets ------------------------------------------------------------------------------

SEQUENTIAL_LOOPS = "{% for i in (1..10) %}.{% endfor %}" * 2000
SQUARING = "{% for i in (1..40) %}{% assign n = n | times: n %}{% endfor %}{{ n }}"
DOUBLING = '{% assign s = "x" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}'


@pytest.mark.parametrize(
    ("source", "limit"),
    [
        (SEQUENTIAL_LOOPS, "NOTIFLOW_TEMPLATE_MAX_ITERATIONS"),
        ("{% for i in (1..100000) %}.{% endfor %}", "NOTIFLOW_TEMPLATE_MAX_ITERATIONS"),
        (SQUARING, "filter 'times' would make a number of over 4300 digits"),
        (DOUBLING, "NOTIFLOW_TEMPLATE_MAX_NAMESPACE_BYTES"),
        ("{% for i in (1..9000) %}" + "x" * 200 + "{% endfor %}", "OUTPUT_CHARS"),
    ],
    ids=["sequential loops", "one long loop", "squaring", "doubling", "output"],
)
def test_every_render_has_a_budget_and_says_which_it_exceeded(source, limit):
    with pytest.raises(TemplateError, match=limit):
        template_render(source, {"payload": {}, "n": 2, "vars": {}})


@override_settings(NOTIFLOW_TEMPLATE_DEADLINE_SECONDS=0)
def test_a_render_past_its_deadline_stops():
    with pytest.raises(TemplateError, match="NOTIFLOW_TEMPLATE_DEADLINE_SECONDS"):
        template_render("{% for i in (1..3) %}{{ i }}{% endfor %}", CONTEXT)


def test_a_nodes_fields_share_one_budget():
    # 6,000 iterations per field is within a field's budget, not within the node's (10,000).
    loop = "{% for i in (1..6000) %}{% endfor %}ok"
    node = email_node("mail", to="a@example.com", subject=loop, body=loop)
    assert template_render(loop, CONTEXT) == "ok"
    with pytest.raises(RenderError, match="NOTIFLOW_TEMPLATE_MAX_ITERATIONS"):
        node_render(node, CONTEXT)


# --- HTML and headers ----------------------------------------------------------------------------

ATTACK = '</p><h1>Urgent</h1><a href="https://evil.example/">log in</a>'


def test_html_bodies_escape_what_the_payload_brings_unless_it_says_raw():
    node = email_node(
        "mail",
        to="a@example.com",
        body="Hi {{ payload.name }}",
        html="<p>Hi {{ payload.name }}</p>",
    )
    rendered = node_render(node, {"payload": {"name": ATTACK}, "vars": {}})
    assert rendered["html"].startswith("<p>Hi &lt;/p&gt;&lt;h1&gt;Urgent")
    assert "<a href" not in rendered["html"]
    assert rendered["body"] == "Hi " + ATTACK  # plain text is not HTML: nothing to escape

    raw = email_node("mail", to="a@example.com", html="<p>{{ payload.name | raw }}</p>")
    assert ATTACK in node_render(raw, {"payload": {"name": ATTACK}, "vars": {}})["html"]


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"subject": "Hi\r\nBcc: all@example.com"}, "'subject' rendered a line break"),
        ({"to": "a@example.com\nBcc: all@example.com"}, "'to' rendered a line break"),
        ({"to": "@@@"}, "'@@@' is not an email address"),
        ({"to": "a@example.com, b@example.com"}, "2 recipients, more than max_recipients (1)"),
    ],
)
def test_email_headers_are_checked_before_anything_is_sent(fields, problem):
    with pytest.raises(RenderError, match=re.escape(problem)):
        node_render(email_node("mail", **fields), CONTEXT)


def test_max_recipients_lets_a_node_send_to_a_few_and_no_more():
    three = "a@example.com, B <b@example.com>, c@example.com"
    node = email_node("mail", to=three, max_recipients=3)
    assert node_render(node, CONTEXT)["to"] == "a@example.com, B <b@example.com>, c@example.com"
    thousand = ",".join(f"x{i}@example.com" for i in range(1000))
    with pytest.raises(RenderError, match="1000 recipients, more than max_recipients"):
        node_render(email_node("mail", to=thousand, max_recipients=3), CONTEXT)
    assert (
        "from 1 to 50"
        in problems(chain(email_node("m", max_recipients=51)))["nodes[0].max_recipients"]
    )


@pytest.mark.parametrize(
    ("number", "sent_as"), [("+1 (555) 010-0100", "+15550100100"), ("+442071838750", None)]
)
def test_sms_goes_to_e164_numbers_only(number, sent_as):
    assert node_render(sms_node("text", to=number), CONTEXT)["to"] == (sent_as or number)
    for bad in ("5550100", "+0123", "+1555010010012345", "call me"):
        with pytest.raises(RenderError, match=r"E\.164"):
            node_render(sms_node("text", to=bad), CONTEXT)


# --- durations and unknown fields ----------------------------------------------------------------


@pytest.mark.parametrize(
    "delay",
    [{"duration": "999999999999d"}, {"duration": "PT99999999999999999999H"}, {"delay_ms": 10**20}],
)
def test_absurd_durations_are_validation_errors_not_crashes(delay):
    found = problems(chain(delay_node("wait", **delay)))
    assert found and all("wait" not in field for field in found)  # located by index
    assert any(("far longer" in m) or ("at most 365 days" in m) for m in found.values())


def test_unknown_fields_are_refused_naming_them():
    node = {**email_node("mail"), "bcc": "{{ payload.everyone }}"}
    definition = chain(node, sms_node("text"))
    definition["edges"][0]["label"] = "x"
    found = problems(definition)
    assert "is not a field of email nodes" in found["nodes[0].bcc"]
    assert "is not a field of an edge" in found["edges[0].label"]


def test_the_preview_renders_within_the_same_budgets():
    # The admin preview runs in a web process: a template must not hold it past its budget.
    from workflows.preview import workflow_preview

    node = email_node("mail", to="a@example.com", body="{% assign n = 2 %}" + SQUARING)
    preview = workflow_preview(
        definition=chain(node),
        payload={"name": "Ann"},
        workflow={"key": "k", "name": "K", "version": 1},
    )
    (mail,) = preview.nodes
    assert not preview.ok and "would make a number of over 4300 digits" in mail.error
