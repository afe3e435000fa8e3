"""A workflow's last 24 hours as SVG charts on its admin page (docs/design/workflows.md, "Charts"), added
through workflows.hooks.WORKFLOW_PAGE_PANELS after the run statistics. The numbers come from
triggers.charts (cached a minute); the pictures from common.svg_charts, drawn on the server."""

from __future__ import annotations

from datetime import datetime

from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from common.svg_charts import Series, bars_svg, lines_svg
from triggers.charts import WorkflowCharts, workflow_charts_cached
from workflows.models import Workflow


def charts_svg(charts: WorkflowCharts) -> list[str]:
    """The four charts of `charts`, each an <svg> (escaped in common.svg_charts)."""
    labels = [f"{hour:%H}h" for hour in charts.hours]
    return [
        bars_svg(
            "Runs ended per hour",
            labels,
            [Series("completed", charts.completed), Series("failed", charts.failed)],
        ),
        lines_svg(
            "Run time (created → completed)",
            labels,
            [Series("p50", charts.p50_seconds), Series("p95", charts.p95_seconds)],
            unit=" s",
        ),
        lines_svg(
            "Lateness p99 (created → first step)",
            labels,
            [Series("p99", charts.lateness_p99_seconds, "#ef6c00")],
            unit=" s",
        ),
        bars_svg(
            "Sends per provider",
            labels,
            [Series(provider, counts) for provider, counts in charts.sends.items()],
        ),
    ]


def workflow_charts_panel(workflow: Workflow, *, now: datetime | None = None) -> str:
    """The panel's HTML: the charts of the 24 hours up to `now` (default: now; the bench draws
    those at the end of its history, bench/charts.py)."""
    charts = workflow_charts_cached(workflow=workflow, now=now)
    return render_to_string(
        "admin/triggers/workflow/charts_panel.html",
        {
            "charts": charts,
            "pictures": [mark_safe(svg) for svg in charts_svg(charts)],  # noqa: S308 (escaped in common.svg_charts)
        },
    )
