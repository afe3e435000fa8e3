"""What translating costs an email step's render (docs/translations.md, "What it costs"): the
same email node written inline and through `t` (a greeting with an argument, a plural), rendered
in one process with the catalogs cached, A and B interleaved; CPU time per render, the median of
five rounds. `-s` prints the figures. The bound is loose (a shared machine): what it catches is a
translation that reaches the database, or parses, on every render."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from tests.factories import email_node
from workflows.semantics import execution_context, node_render

pytestmark = pytest.mark.django_db

ROUNDS, RENDERS = 5, 1000


@pytest.mark.alone  # a cost against a bound: beside two other processes it read 461 µs over 173
def test_a_translated_email_renders_within_a_fraction_of_a_millisecond_more(catalogs):
    inline = email_node("mail", subject="Welcome, {{ payload.name }}", body="{{ payload.n }} items")
    translated = email_node(
        "mail",
        subject='{{ "welcome.subject" | t: name: payload.name }}',
        body='{{ "cart.items" | t: count: payload.n }}',
    )
    context = execution_context(
        payload={"email": "a@example.com", "name": "Al", "n": 3},
        vars={},
        trigger={},
        workflow={},
        now=datetime.now(UTC),
        recipient={"id": "al", "locale": "fr"},
    )
    assert node_render(translated, context)["body"] == "3 articles"
    node_render(inline, context)
    rounds: dict[str, list[float]] = {"inline": [], "t": []}
    for _ in range(ROUNDS):
        for name, node in (("inline", inline), ("t", translated)):
            started = time.process_time()
            for _ in range(RENDERS):
                node_render(node, context)
            rounds[name].append((time.process_time() - started) / RENDERS * 1e6)
    inline_us, translated_us = (sorted(rounds[name])[ROUNDS // 2] for name in ("inline", "t"))
    print(f"\nper render: inline {inline_us:.0f} µs, through t {translated_us:.0f} µs")
    assert translated_us < inline_us + 250
