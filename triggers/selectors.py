"""Reads for triggers."""

from __future__ import annotations

from django.db.models import QuerySet

from triggers.models import TriggerInstance


def trigger_list(
    *, workflow_key: str | None = None, status: str | None = None
) -> QuerySet[TriggerInstance]:
    triggers = TriggerInstance.objects.select_related("workflow", "workflow_version")
    if workflow_key:
        triggers = triggers.filter(workflow__key=workflow_key)
    if status:
        triggers = triggers.filter(status=status)
    return triggers.order_by("-created_at")
