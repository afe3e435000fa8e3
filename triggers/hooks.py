"""The hooks triggers calls (common/hooks.py; docs/design/hooks.md, "Hooks"), and what it registers
in the hooks of the rooms below."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING
from uuid import UUID

from common.hooks import Hook

if TYPE_CHECKING:
    from triggers.models import TriggerInstance
    from triggers.selectors import TimelineEntry

# Called with the ids of the runs a cancel stopped, inside the cancel's transaction.
CANCELLED_HOOKS: Hook[Callable[[list[UUID]], object]] = Hook()
# More entries of a run's timeline in the admin, each returning its entries oldest first.
TIMELINE_SOURCES: Hook[Callable[[TriggerInstance], list[TimelineEntry]]] = Hook()


def register() -> None:
    from events.hooks import RUN_TRACE_CONTEXT
    from recipients.hooks import RECIPIENT_PAGE_PANELS
    from triggers.admin.charts import workflow_charts_panel
    from triggers.admin.recipient_runs import recipient_runs_panel
    from triggers.admin.stats import workflow_stats_panel
    from triggers.selectors import run_trace_context
    from workflows.hooks import WORKFLOW_PAGE_PANELS

    # While tracing is on, a webhook delivery of an event about a run is a span of the run's
    # trace (docs/design/observability.md, "Traces"): the dispatcher reads the run's stored context here.
    RUN_TRACE_CONTEXT.register(run_trace_context)
    WORKFLOW_PAGE_PANELS.register(workflow_stats_panel)
    WORKFLOW_PAGE_PANELS.register(workflow_charts_panel)  # after the statistics
    RECIPIENT_PAGE_PANELS.register(recipient_runs_panel)
