from __future__ import annotations

from typing import Any

from django.db import models


class Workflow(models.Model):
    """A named, versioned DAG of notification nodes. The definition lives in WorkflowVersion."""

    key = models.SlugField(max_length=100, unique=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    active = models.BooleanField(default=True)
    current_version = models.ForeignKey(
        "WorkflowVersion", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["key"]

    def __str__(self) -> str:
        return self.key

    @property
    def version(self) -> int:
        return self.current_version.number if self.current_version else 0

    @property
    def definition(self) -> dict[str, Any]:
        return self.current_version.definition if self.current_version else {}


class WorkflowVersion(models.Model):
    """An immutable snapshot of a workflow's definition. Triggers pin the version they started on."""

    workflow = models.ForeignKey(Workflow, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    # {"entry_node_id": str, "nodes": [{"id", "type", ...fields}], "edges": [{"from", "to", "when"?}]}
    definition = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["workflow_id", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["workflow", "number"], name="workflow_version_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.workflow_id} v{self.number}"
