from __future__ import annotations

from typing import Any

from django.core.validators import MaxValueValidator
from django.db import models

from workflows.routing import (
    NAME_MAX_LENGTH,
    PRIORITY_DEFAULT,
    PRIORITY_MAX,
    PRIORITY_MIN,
    default_queue,
    key_validator,
    queue_validator,
)

MESSAGE_MAX_LENGTH = 500


class Workflow(models.Model):
    """A named, versioned DAG of notification nodes. The definition lives in WorkflowVersion."""

    # A dotted namespace (`billing.invoice_due.v1`) or a plain name; fixed once created.
    key = models.CharField(max_length=NAME_MAX_LENGTH, unique=True, validators=[key_validator])
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    active = models.BooleanField(default=True)
    # The Celery queue every nudge of its runs goes to (docs/design/rules.md, rule 11). Left blank, it
    # is the key's first segment (workflows.routing.default_queue), filled in on save.
    queue = models.CharField(max_length=NAME_MAX_LENGTH, blank=True, validators=[queue_validator])
    # Its runs' priority unless a trigger says otherwise: 0-9, higher is more urgent.
    priority = models.PositiveSmallIntegerField(
        default=PRIORITY_DEFAULT,
        db_default=PRIORITY_DEFAULT,
        validators=[MaxValueValidator(PRIORITY_MAX)],
    )
    current_version = models.ForeignKey(
        "WorkflowVersion", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["key"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(priority__gte=PRIORITY_MIN, priority__lte=PRIORITY_MAX),
                name="workflow_priority_range",
            ),
        ]

    def __str__(self) -> str:
        return self.key

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.queue:
            self.queue = default_queue(self.key)
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "queue"}
        super().save(*args, **kwargs)

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
    # Where it came from: the actor (common/actors.py: `api:<key name>` for the key that pushed
    # it) and the note its author gave, such as the commit a `notiflow workflows push` ran at.
    created_by = models.CharField(max_length=200, blank=True)
    message = models.CharField(max_length=MESSAGE_MAX_LENGTH, blank=True, default="", db_default="")

    class Meta:
        ordering = ["workflow_id", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["workflow", "number"], name="workflow_version_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.workflow_id} v{self.number}"
