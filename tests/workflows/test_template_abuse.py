"""Issue 31: templates and headers that cannot be abused (docs/security/content.md, "Limits"). Filters
spend the render's budget like loops do; whatever a filter raises on payload data is a named
template error; no character that can end a header line reaches one."""

from __future__ import annotations

import gc
import re
import time
import tracemalloc

import pytest
from django.test import override_settings

from tests.factories import email_node, sms_node
from workflows import templating
from workflows.semantics import RenderError, node_render
from workflows.templating import TemplateError, parsed_size_estimate, template_render
from workflows.timing import until_parse


def render(source: str, **payload):
    return template_render(source, {"payload": payload, "vars": {}})


# --- filters spend the budget ---------------------------------------------------------------------


@override_settings(
    NOTIFLOW_TEMPLATE_DEADLINE_SECONDS=0.3, NOTIFLOW_TEMPLATE_MAX_RENDER_BYTES=10**10
)
def test_a_filter_chain_stops_at_the_deadline_even_when_it_writes_nothing():
    # Every pass takes ~80 ms on 200 KB; the chain ends in `remove`, so it writes "" (which
    # looked at no clock): 30 passes ran for seconds and the render came back empty.
    chain = " | split: '' | join: ''" * 30
    started = time.monotonic()
    with pytest.raises(TemplateError, match="NOTIFLOW_TEMPLATE_DEADLINE_SECONDS"):
        render("{{ payload.s" + chain + " | remove: payload.s }}", s="ab" * 100_000)
    assert time.monotonic() - started < 1.5


def test_a_filter_result_that_would_be_too_big_is_refused_before_it_is_made():
    tracemalloc.start()
    try:
        with pytest.raises(TemplateError, match="NOTIFLOW_TEMPLATE_MAX_VALUE_BYTES"):
            render("{{ 'x'" + " | replace: 'x', 'xxxxxxxxxx'" * 8 + " | size }}")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000  # 10**7 characters were never made, let alone 10**8


def test_a_join_with_a_huge_separator_is_refused_before_it_is_made():
    with pytest.raises(TemplateError, match=r"filter 'join'.*NOTIFLOW_TEMPLATE_MAX_VALUE_BYTES"):
        render("{{ payload.items | join: payload.glue | size }}", items=[1] * 1000, glue="g" * 5000)


@override_settings(NOTIFLOW_TEMPLATE_MAX_RENDER_BYTES=5_000_000)
def test_what_all_the_filters_of_a_render_make_is_bounded():
    chain = " | upcase | downcase" * 5  # 10 values of 1 MB each, each under the value cap
    with pytest.raises(TemplateError, match="NOTIFLOW_TEMPLATE_MAX_RENDER_BYTES"):
        render("{{ payload.s" + chain + " | size }}", s="a" * 1_000_000)
    assert render("{{ payload.s | upcase | size }}", s="a" * 1_000_000) == "1000000"


def test_a_range_a_filter_walks_counts_as_loop_iterations():
    with pytest.raises(TemplateError, match="NOTIFLOW_TEMPLATE_MAX_ITERATIONS"):
        render("{{ (1..2000000) | join: '' | size }}")
    with pytest.raises(TemplateError, match="NOTIFLOW_TEMPLATE_MAX_ITERATIONS"):
        render("{{ (1..100000000000000000000) | first }}")
    assert render("{{ (1..10) | join: ',' }}") == "1,2,3,4,5,6,7,8,9,10"


def test_numbers_too_long_to_print_are_refused_by_the_filter_that_would_make_them():
    big = int("9" * 3000)
    with pytest.raises(TemplateError, match="filter 'times' would make a number of over 4300"):
        render("{{ payload.n | times: payload.n }}", n=big)


def test_uniq_is_linear_and_keeps_its_meaning():
    items = [{"id": i % 20_000, "tags": [i % 3]} for i in range(40_000)]
    started = time.monotonic()
    assert render("{{ payload.items | uniq | size }}", items=items) == "40000"
    assert render("{{ payload.items | uniq: 'id' | size }}", items=items) == "20000"
    assert time.monotonic() - started < 5  # liquid's own compares every pair: minutes
    assert render("{{ payload.l | uniq | join: ',' }}", l=[1, "1", 1, [2, 1], 3, 2]) == "1,1,2,3"
    mixed = [{"a": 1, "b": 2}, {"b": 2, "a": 1}, {"a": 1}]
    assert render("{{ payload.l | uniq | size }}", l=mixed) == "2"
    assert render("{{ payload.l | uniq: 'a' | size }}", l=[*mixed, {"c": 1}, {"c": 2}]) == "2"


# --- whatever a filter raises on payload data is a named template error ---------------------------


@pytest.mark.parametrize(
    ("source", "payload", "named"),
    [
        ("{{ payload.s | strip_html }}", {"s": "hi <![ there >"}, "strip_html"),
        ("{{ payload.n | date: '%Y' }}", {"n": -(10**15)}, "date"),
        ("{{ payload.l | map: 'a' | sum }}", {"l": [{"a": "x"}]}, "sum"),
        ("{{ payload.n | times: payload.n }}", {"n": int("9" * 4000)}, "times"),
        ("{{ payload.n | plus: payload.n }}", {"n": int("9" * 4300)}, "ValueError: Exceeds"),
        ("{{ payload.s | base64_decode }}", {"s": "/w=="}, "base64_decode"),
    ],
    ids=["strip_html", "date", "map|sum", "times", "too long to print", "base64_decode"],
)
def test_a_filter_failing_on_payload_data_is_a_template_error_naming_it(source, payload, named):
    with pytest.raises(TemplateError, match=named):
        render(source, **payload)


def test_a_delay_until_out_of_the_range_of_dates_is_a_value_error_naming_it():
    for spelled in ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"):
        with pytest.raises(ValueError, match=re.escape(spelled) + ".*out of the range"):
            until_parse(spelled)


# --- headers --------------------------------------------------------------------------------------

HEADER_BREAKERS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\x00"]


@pytest.mark.parametrize("breaker", HEADER_BREAKERS, ids=[repr(c) for c in HEADER_BREAKERS])
def test_no_character_that_can_end_a_header_line_renders_into_a_header(breaker):
    injected = email_node("mail", to="a@example.com", subject="{{ payload.s }}")
    with pytest.raises(RenderError, match="'subject' rendered a line break or control character"):
        node_render(
            injected, {"payload": {"name": "A", "s": f"Your order{breaker}X-Injected: yes"}}
        )
    to = email_node("mail", to="{{ payload.to }}")
    with pytest.raises(RenderError, match="'to' rendered a line break or control character"):
        node_render(
            to,
            {"payload": {"name": "A", "to": f"a@example.com{breaker}Reply-To: evil@example.com"}},
        )


def test_a_tab_and_unicode_text_stay_allowed_in_headers():
    node = email_node("mail", to="a@example.com", subject="{{ payload.s }}")
    subject = "Grüße\tfrom Zürich — ✓"
    assert node_render(node, {"payload": {"name": "A", "s": subject}})["subject"] == subject
    assert node_render(sms_node("t", to="+15550100"), {"payload": {"name": "x"}})["to"]


# --- the parse cache ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "unit",
    ["{{a}}", "{{a.b}}", "{{a[0]}}", "{%if a%}{%endif%}", "{{a|size}}", "Dear {{ a }},\n", "text"],
)
def test_the_parsed_size_estimate_is_an_upper_bound_of_the_memory_a_parse_takes(unit):
    source = unit * (16_000 // len(unit))
    gc.collect()
    tracemalloc.start()
    try:
        parsed = templating._templates.from_string(source)
        taken, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert parsed is not None
    assert taken <= parsed_size_estimate(source) < 3 * taken + 2 * len(source)


@pytest.mark.slow  # fills a 10 MB cache
@override_settings(NOTIFLOW_TEMPLATE_CACHE_BYTES=10_000_000)
def test_the_parsed_template_cache_is_bounded_by_the_memory_it_takes():
    # Four 32 KB templates of `{{a}}`: 128 KB of source, ~15 MB parsed.
    templating.PARSED.clear()
    gc.collect()
    tracemalloc.start()
    try:
        for i in range(4):
            templating.PARSED.get_or_parse(templating._templates, "{{a}}" * 6_399 + str(i))
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        cached = templating.PARSED.size_bytes
        templating.PARSED.clear()
    assert 0 < cached <= 10_000_000
    assert held < 11_000_000
