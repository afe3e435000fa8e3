"""A workflow's engagement funnel on its admin page (docs/funnel.md), beside the run charts:
through workflows.hooks.WORKFLOW_PAGE_PANELS, after triggers' panels. One bar chart per sending
node, drawn on the server by common.svg_charts, with the rates under it. Read uncached: the
rollup answers a day in milliseconds (deliveries.funnel)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import mark_safe

from common.svg_charts import Series, bars_svg
from deliveries.funnel import RATES, FunnelNode, workflow_funnel
from workflows.models import Workflow

# The current hour and the 23 before it: the run charts' hours (triggers.charts).
HOURS = 24
# The bars' colours by what the outcome says of the message: went, was engaged with, was lost.
_SENT, _ENGAGED, _LOST = "#2e7d32", "#1565c0", "#c62828"
_BARS = (
    ("sent", "sent", _SENT),
    ("delivered", "delivered", _ENGAGED),
    ("opened", "opened", _ENGAGED),
    ("clicked", "clicked", _ENGAGED),
    ("bounced", "bounced", _LOST),
    ("complained", "complained", _LOST),
    ("unsubscribed", "unsubs.", _LOST),
    ("skipped", "skipped", _LOST),
    ("failed", "failed", _LOST),
)


def funnel_svg(node: FunnelNode) -> str:
    """The node's counts as bars, sent first (escaped in common.svg_charts)."""
    labels = [label for _, label, _ in _BARS]
    groups = {"sent": _SENT, "engaged": _ENGAGED, "lost": _LOST}
    series = [
        Series(
            group,
            [
                node.counts[outcome] if colour == groups[group] else 0
                for outcome, _, colour in _BARS
            ],
            groups[group],
        )
        for group in groups
    ]
    return bars_svg(f"{node.node} ({node.channel})", labels, series)


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def workflow_funnel_panel(workflow: Workflow, *, now: datetime | None = None) -> str:
    """The panel's HTML: the funnel of the messages sent in the current hour and the 23 before
    it, up to `now`."""
    until = now or timezone.now()
    since = until - timedelta(hours=HOURS - 1)
    funnel = workflow_funnel(workflow=workflow, since=since, until=until)
    nodes = [
        {
            "node": node.node,
            "picture": mark_safe(funnel_svg(node)),  # noqa: S308 (escaped in common.svg_charts)
            "rates": [
                (rate.name.replace("_", " "), _rate(node.rates[rate.name])) for rate in RATES
            ],
        }
        for node in funnel.nodes
        if any(node.counts.values())
    ]
    # A node with nothing in the window is named, not drawn: the page of a workflow at the node
    # limit stays a few kB a node (tests/workflows/test_admin_scale.py).
    quiet = [node.node for node in funnel.nodes if not any(node.counts.values())]
    return render_to_string(
        "admin/deliveries/workflow/funnel_panel.html",
        {"funnel": funnel, "nodes": nodes, "quiet": quiet},
    )
