"""What rendering with content costs (issue 48: at most 10 % more CPU per email step): the
engine on K triggers of three email steps written inline, against the same messages through
translations, a layout and two partials (docs/layouts.md), in the same round, the two sides
alternated from one round to the next so neither always runs first on a warmer machine (as
bench/metrics_cost.py does). The verdict is the worker pool's CPU per step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.engine import EngineRun, engine_run
from bench.fixtures import chain, email_node
from bench.metrics_cost import engine_cpu_ms_per_step
from bench.report import Row, ratio, spread

HEADER = (
    '<table width="100%"><tr><td><img src="https://example.com/logo.png" alt="Example">'
    "</td></tr></table>"
)
FOOTER = (
    '<p style="color:#888">Example Inc., 1 Main Street. <a href="https://example.com/u">'
    "Unsubscribe</a></p>"
)
BODY = "Hello {{ payload.name }},\nyour {{ payload.plan }} plan is ready."


def _inline_email(node_id: str) -> dict[str, Any]:
    """The message written out in the node: subject, body and the whole HTML."""
    return {
        **email_node(node_id),
        "subject": "Your {{ payload.plan }} plan is ready",
        "body": BODY,
        "html": f"<html><body>{HEADER}<p>Hello {{{{ payload.name }}}},<br>\nyour "
        f"{{{{ payload.plan }}}} plan is ready.</p>{FOOTER}</body></html>",
    }


def _content_email(node_id: str) -> dict[str, Any]:
    """The same message through the catalogs, the layout and its two partials."""
    return {
        **email_node(node_id),
        "subject": '{{ "plan.subject" | t: plan: payload.plan }}',
        "body": '{{ "plan.body" | t: name: payload.name, plan: payload.plan }}',
        "layout": "bench",
    }


INLINE_DEFINITION = chain(*(_inline_email(n) for n in ("one", "two", "three")))
CONTENT_DEFINITION = chain(*(_content_email(n) for n in ("one", "two", "three")))


def content_install() -> None:
    """The catalog, the two partials and the layout CONTENT_DEFINITION renders with, stored
    through the services in the engine database (the workers read them there)."""
    from content.services import catalog_put, layout_put, partial_put

    catalog_put(
        locale="en",
        messages={
            "plan": {
                "subject": "Your {{ plan }} plan is ready",
                "body": "Hello {{ name }},\nyour {{ plan }} plan is ready.",
            }
        },
        actor="bench",
    )
    partial_put(key="header", content=HEADER, actor="bench")
    partial_put(key="footer", content=FOOTER, actor="bench")
    layout_put(
        key="bench",
        name="Bench",
        html='<html><body>{% render "header" %}<p>{{ content }}</p>{% render "footer" %}'
        "</body></html>",
        actor="bench",
    )


@dataclass(frozen=True)
class ContentCostRound:
    inline: EngineRun
    content: EngineRun


def content_cost_run(bench: Any, say: Callable[[str], None], *, round_: int) -> ContentCostRound:
    """One round: the engine (K triggers x 3 email steps) inline and through content."""
    a, procs = bench.args, bench.procs
    if round_ == 0:
        content_install()
    sides = [("inline", INLINE_DEFINITION), ("content", CONTENT_DEFINITION)]
    if round_ % 2:
        sides.reverse()
    runs: dict[str, EngineRun] = {}
    for side, definition in sides:
        say(f"content {side}: engine, {a.triggers} triggers x 3 email steps (round {round_ + 1})")
        runs[side] = engine_run(
            procs, triggers=a.triggers, tag=f"content{side}{round_}", definition=definition
        )
        say(f"  {runs[side]}")
    return ContentCostRound(inline=runs["inline"], content=runs["content"])


def content_rows(bench: Any, rounds: list[ContentCostRound]) -> list[Row]:
    """Pool CPU per email step, through content against inline (target: at most 1.10)."""
    if not rounds:
        return []
    content = [engine_cpu_ms_per_step(r.content) for r in rounds]
    inline = [engine_cpu_ms_per_step(r.inline) for r in rounds]
    value, text = ratio(content, inline)
    return [
        Row(
            "email step with translations, a layout and two partials vs inline (pool CPU ms/step)",
            f"content {spread(content, digits=2)}, inline {spread(inline, digits=2)}; steps/s "
            f"content {spread([r.content.steps_per_second for r in rounds])}, inline "
            f"{spread([r.inline.steps_per_second for r in rounds])}",
            ratio=text,
            target="<= 1.10",
            met=None if value is None else value <= 1.10,
            command=bench.cmd("content", triggers=bench.args.triggers, repeat=3),
        )
    ]
