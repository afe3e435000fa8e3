"""Reads for step logs and the send ledger."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.db.models import QuerySet

from workers.models import StepExecutionLog


def step_log_list(
    *,
    trigger_id: UUID | str | None = None,
    node_id: str | None = None,
    run_created_at: datetime | None = None,
) -> QuerySet[StepExecutionLog]:
    """Step logs, oldest first, by trigger and/or node, with their workflow (shown by key).

    `run_created_at`, the trigger's `created_at`: PostgreSQL then reads the trigger's partition
    and the old table only (workers migration 0014), not every partition's index."""
    logs = StepExecutionLog.objects.select_related("workflow")
    if trigger_id:
        logs = logs.filter(trigger_id=UUID(str(trigger_id)))
    if run_created_at is not None:
        logs = logs.of_run_created(run_created_at)
    if node_id:
        logs = logs.filter(node_id=node_id)
    return logs.order_by("started_at", "id")
