"""Writes for workflows. Every change of definition creates a new immutable WorkflowVersion."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import ProtectedError

from workflows.models import Workflow, WorkflowVersion
from workflows.validation import ValidationError, workflow_validate

DEFINITION_KEYS = ("entry_node_id", "nodes", "edges")


class WorkflowInvalid(Exception):
    """The definition broke one or more rules; nothing was saved."""

    def __init__(self, errors: list[ValidationError]):
        super().__init__("; ".join(f"{e.field}: {e.message}" for e in errors))
        self.errors = errors


def definition_normalize(definition: dict[str, Any]) -> dict[str, Any]:
    """The stored form: exactly entry_node_id, nodes and edges (edges default to none)."""
    return {
        "entry_node_id": definition.get("entry_node_id"),
        "nodes": definition.get("nodes"),
        "edges": definition.get("edges") if definition.get("edges") is not None else [],
    }


def _validated(definition: dict[str, Any]) -> dict[str, Any]:
    normalized = definition_normalize(definition)
    errors = workflow_validate(normalized)
    if errors:
        raise WorkflowInvalid(errors)
    return normalized


@transaction.atomic
def workflow_create(
    *,
    key: str,
    name: str,
    definition: dict[str, Any],
    description: str = "",
    active: bool = True,
    actor: str = "",
) -> Workflow:
    """Validate and create a workflow at version 1. Raises WorkflowInvalid, saving nothing."""
    normalized = _validated(definition)
    workflow = Workflow.objects.create(key=key, name=name, description=description, active=active)
    version = WorkflowVersion.objects.create(
        workflow=workflow, number=1, definition=normalized, created_by=actor
    )
    workflow.current_version = version
    workflow.save(update_fields=["current_version"])
    return workflow


@transaction.atomic
def workflow_update(
    *,
    workflow: Workflow,
    definition: dict[str, Any] | None = None,
    name: str | None = None,
    description: str | None = None,
    active: bool | None = None,
    actor: str = "",
) -> Workflow:
    """Change attributes; a changed definition becomes version N+1 (in-flight triggers keep theirs).

    The workflow row is locked so that two concurrent edits get consecutive version numbers.
    """
    locked = (
        Workflow.objects.select_for_update(of=("self",))
        .select_related("current_version")
        .get(pk=workflow.pk)
    )
    fields = ["updated_at"]
    for attr, value in (("name", name), ("description", description), ("active", active)):
        if value is not None and getattr(locked, attr) != value:
            setattr(locked, attr, value)
            fields.append(attr)
    if definition is not None:
        normalized = _validated(definition)
        if locked.current_version is None or normalized != locked.current_version.definition:
            locked.current_version = WorkflowVersion.objects.create(
                workflow=locked, number=locked.version + 1, definition=normalized, created_by=actor
            )
            fields.append("current_version")
    locked.save(update_fields=fields)
    return locked


def workflow_delete(*, workflow: Workflow) -> bool:
    """Delete a workflow that never ran; one with triggers is deactivated instead (history stays).

    Returns True when deleted, False when deactivated.
    """
    try:
        with transaction.atomic():
            workflow.delete()
        return True
    except ProtectedError:
        workflow_update(workflow=workflow, active=False)
        return False
