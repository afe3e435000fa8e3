"""What a layout, two partials and translations cost an email step's render (docs/layouts.md,
"What it costs"): the bench's email (bench/content_cost.py) written inline and through content,
rendered in one process with the content cached, A and B interleaved; CPU time per render, the
median of five rounds. `-s` prints the figures. The bound is loose (a shared machine): what it
catches is a layout or partial that reaches the database, or parses, on every render."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from bench.content_cost import CONTENT_DEFINITION, INLINE_DEFINITION, content_install
from bench.fixtures import PAYLOAD
from content.selectors import CATALOGS, PIECES
from workflows.semantics import execution_context, node_render, workflow_context

pytestmark = pytest.mark.django_db

ROUNDS, RENDERS = 5, 1000


@pytest.fixture
def installed():
    content_install()
    yield
    CATALOGS.forget()
    PIECES.forget()


def test_an_email_through_content_renders_within_a_fraction_of_a_millisecond_more(installed):
    inline, laid_out = INLINE_DEFINITION["nodes"][0], CONTENT_DEFINITION["nodes"][0]
    context = execution_context(
        payload=PAYLOAD,
        vars={},
        trigger={"id": "t", "idempotency_key": "k", "created_at": "2026-01-01T00:00:00+00:00"},
        workflow=workflow_context(key="w", name="W", version=1),
        now=datetime.now(UTC),
    )
    assert node_render(laid_out, context) == node_render(inline, context)
    rounds: dict[str, list[float]] = {"inline": [], "content": []}
    for _ in range(ROUNDS):
        for name, node in (("inline", inline), ("content", laid_out)):
            started = time.process_time()
            for _ in range(RENDERS):
                node_render(node, context)
            rounds[name].append((time.process_time() - started) / RENDERS * 1e6)
    inline_us, content_us = (sorted(rounds[name])[ROUNDS // 2] for name in rounds)
    print(f"\nper render: inline {inline_us:.0f} µs, through content {content_us:.0f} µs")
    assert content_us < inline_us + 400
