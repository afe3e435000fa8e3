"""Writes for workflows. Every change of definition creates a new immutable WorkflowVersion."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.db.models import ProtectedError

from workflows.definition import TRANSACTIONAL
from workflows.models import Workflow, WorkflowVersion
from workflows.routing import PRIORITY_DEFAULT, default_queue
from workflows.validation import ValidationError, workflow_validate

DEFINITION_KEYS = (
    "entry_node_id",
    "nodes",
    "edges",
    "category",
    "preference_category",
    "required",
    "default_locale",
    "default_layout",
)


class WorkflowInvalid(Exception):
    """The definition broke one or more rules; nothing was saved."""

    def __init__(self, errors: list[ValidationError]):
        super().__init__("; ".join(f"{e.field}: {e.message}" for e in errors))
        self.errors = errors


def definition_normalize(definition: dict[str, Any]) -> dict[str, Any]:
    """The stored form: exactly entry_node_id, nodes and edges (edges default to none, the entry
    to the first node), and `category`, `preference_category`, `required` and `default_locale`
    when they are not the default (so definitions from before them, and those that name the default, are equal and
    make no new version)."""
    entry = definition.get("entry_node_id")
    nodes = definition.get("nodes")
    if entry in (None, "") and isinstance(nodes, list) and nodes and isinstance(nodes[0], dict):
        entry = nodes[0].get("id")
    normalized: dict[str, Any] = {
        "entry_node_id": entry,
        "nodes": nodes,
        "edges": definition.get("edges") if definition.get("edges") is not None else [],
    }
    if definition.get("category") not in (None, "", TRANSACTIONAL):
        normalized["category"] = definition["category"]
    if definition.get("preference_category") not in (None, ""):
        normalized["preference_category"] = definition["preference_category"]
    if definition.get("required") not in (None, False):
        normalized["required"] = definition["required"]
    if definition.get("default_locale") not in (None, ""):
        normalized["default_locale"] = definition["default_locale"]
    if definition.get("default_layout") not in (None, ""):
        normalized["default_layout"] = definition["default_layout"]
    return normalized


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
    queue: str = "",
    priority: int = PRIORITY_DEFAULT,
    actor: str = "",
    message: str = "",
) -> Workflow:
    """Validate and create a workflow at version 1, recording `actor` and `message` on it.
    Raises WorkflowInvalid, saving nothing. An empty `queue` is the one its key implies
    (workflows.routing.default_queue)."""
    normalized = _validated(definition)
    workflow = Workflow.objects.create(
        key=key, name=name, description=description, active=active, queue=queue, priority=priority
    )
    version = WorkflowVersion.objects.create(
        workflow=workflow, number=1, definition=normalized, created_by=actor, message=message
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
    queue: str | None = None,
    priority: int | None = None,
    actor: str = "",
    message: str = "",
) -> Workflow:
    """Change attributes; a changed definition becomes version N+1 (in-flight triggers keep theirs),
    recording `actor` and `message` on it. An unchanged definition makes no version (its
    `message` is then recorded nowhere).

    A new `queue` ("" for the one the key implies) or `priority` is not part of a version: runs in
    flight follow the queue from their next nudge on, and keep the priority they were given.
    The workflow row is locked so that two concurrent edits get consecutive version numbers.
    Raises Workflow.DoesNotExist when it was deleted meanwhile.
    """
    locked = (
        Workflow.objects.select_for_update(of=("self",))
        .select_related("current_version")
        .get(pk=workflow.pk)
    )
    fields = ["updated_at"]
    if queue is not None:
        queue = queue or default_queue(locked.key)
    changes = (
        ("name", name),
        ("description", description),
        ("active", active),
        ("queue", queue),
        ("priority", priority),
    )
    for attr, value in changes:
        if value is not None and getattr(locked, attr) != value:
            setattr(locked, attr, value)
            fields.append(attr)
    if definition is not None:
        normalized = _validated(definition)
        if locked.current_version is None or normalized != locked.current_version.definition:
            locked.current_version = WorkflowVersion.objects.create(
                workflow=locked,
                number=locked.version + 1,
                definition=normalized,
                created_by=actor,
                message=message,
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


class WorkflowImportInvalid(Exception):
    """One or more documents could not be imported; nothing was saved. `problems` maps a
    document's label (its key, or its position) to what is wrong with it."""

    def __init__(self, problems: dict[str, list[str]]):
        super().__init__("; ".join(f"{k}: {', '.join(v)}" for k, v in problems.items()))
        self.problems = problems


@dataclass(frozen=True)
class ImportResult:
    key: str
    action: str  # "created", "updated" (a new version) or "unchanged"
    version: int


def _import_problems(document: Any) -> list[str]:
    if not isinstance(document, dict):
        return ["must be a JSON object"]
    problems = [f"{k} is required" for k in ("key", "name") if not document.get(k)]
    if document.get("key"):
        # The model field's own validators (a slug of at most 100), as the API and admin apply.
        try:
            Workflow._meta.get_field("key").clean(str(document["key"]), None)
        except DjangoValidationError as exc:
            problems += [f"key: {message}" for message in exc.messages]
    problems += [
        f"{e.field}: {e.message}" for e in workflow_validate(definition_normalize(document))
    ]
    return problems


@transaction.atomic
def workflow_import(*, documents: list[Any], actor: str = "") -> list[ImportResult]:
    """Create or update workflows from exported documents (see `workflow_export`), all or none.

    Every document goes through the one validator first; any problem raises WorkflowImportInvalid
    listing all of them and saves nothing. An existing key gets a new version only when its
    definition differs; name, description and active are taken from the document.
    """
    problems = {
        str(doc.get("key") if isinstance(doc, dict) and doc.get("key") else f"#{i + 1}"): p
        for i, doc in enumerate(documents)
        if (p := _import_problems(doc))
    }
    keys = [doc["key"] for doc in documents if isinstance(doc, dict)]
    for key in {k for k in keys if keys.count(k) > 1}:
        problems.setdefault(str(key), []).append("appears more than once")
    if problems:
        raise WorkflowImportInvalid(problems)
    results = []
    for doc in documents:
        existing = Workflow.objects.filter(key=doc["key"]).first()
        if existing is None:
            created = workflow_create(
                key=doc["key"],
                name=doc["name"],
                description=doc.get("description") or "",
                active=bool(doc.get("active", True)),
                definition=doc,
                actor=actor,
            )
            results.append(ImportResult(created.key, "created", created.version))
            continue
        before = existing.version
        updated = workflow_update(
            workflow=existing,
            definition=doc,
            name=doc["name"],
            description=doc.get("description") or "",
            active=bool(doc.get("active", True)),
            actor=actor,
        )
        action = "updated" if updated.version != before else "unchanged"
        results.append(ImportResult(updated.key, action, updated.version))
    return results
