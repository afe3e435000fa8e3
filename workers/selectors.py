"""Reads for step logs and the send ledger."""

from __future__ import annotations

from uuid import UUID

from django.db.models import QuerySet

from workers.models import StepExecutionLog


def step_log_list(
    *, trigger_id: UUID | str | None = None, node_id: str | None = None
) -> QuerySet[StepExecutionLog]:
    """Step logs, oldest first, by trigger and/or node, with their workflow (shown by key)."""
    logs = StepExecutionLog.objects.select_related("workflow")
    if trigger_id:
        logs = logs.filter(trigger_id=UUID(str(trigger_id)))
    if node_id:
        logs = logs.filter(node_id=node_id)
    return logs.order_by("started_at", "id")
