"""A workflow's run statistics on its admin page, added through
workflows.hooks.WORKFLOW_PAGE_PANELS (workflows cannot import triggers; triggers may import
workflows)."""

from __future__ import annotations

from django.template.loader import render_to_string
from django.urls import reverse

from registry.selectors import worker_command
from triggers.selectors import workflow_stats
from workflows.models import Workflow


def workflow_stats_panel(workflow: Workflow) -> str:
    """The panel's HTML: triggers by status (each a link to those runs), what waits for a
    worker, and the last hour's success rate and run times."""
    stats = workflow_stats(workflow=workflow)
    rate = stats.success_rate
    return render_to_string(
        "admin/triggers/workflow/stats_panel.html",
        {
            "stats": stats,
            "success_rate": None if rate is None else round(100 * rate, 1),
            "workflow_id": workflow.pk,
            "worker_command": worker_command(stats.queue),
            "runs_url": reverse("admin:triggers_triggerinstance_changelist"),
        },
    )
