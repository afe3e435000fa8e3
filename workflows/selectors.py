"""Reads for workflows, including the compiled form the engine walks."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from django.db.models import QuerySet

from workflows.definition import category_of, preference_category_of, required_of
from workflows.models import Workflow, WorkflowVersion
from workflows.semantics import steps_read


def workflow_list() -> QuerySet[Workflow]:
    return Workflow.objects.select_related("current_version").order_by("key")


@dataclass(frozen=True)
class CompiledWorkflow:
    """A version's definition indexed for the engine: nodes by id, outgoing edges in order."""

    version_id: int
    number: int
    workflow_key: str
    workflow_name: str
    entry_node_id: str
    nodes: dict[str, dict[str, Any]]
    category: str
    outgoing: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    preference_category: str = ""  # "" for none (workflows.definition.preference_category_of)
    required: bool = False  # preferences do not turn its sends off
    # The steps whose message state (`steps.<id>.delivery`) some edge's `when` reads: the engine
    # reads those states only for them (none: no statement).
    steps_read: tuple[str, ...] = ()
    # The definition's `default_locale` ("": none), the end of its runs' locale chain.
    default_locale: str = ""
    # The definition's `default_layout` ("": none), its emails' layout after the node's.
    default_layout: str = ""


@lru_cache(maxsize=1024)
def workflow_version_compiled(version_id: int) -> CompiledWorkflow:
    """The compiled version, cached per process: versions are immutable, so it never goes stale.

    The workflow's name is taken as of the first load; a rename shows up after a worker restart.
    """
    version = WorkflowVersion.objects.select_related("workflow").get(pk=version_id)
    definition = version.definition
    outgoing: dict[str, list[dict[str, Any]]] = {n["id"]: [] for n in definition["nodes"]}
    for edge in definition.get("edges", []):
        outgoing[edge["from"]].append(edge)
    return CompiledWorkflow(
        version_id=version.pk,
        number=version.number,
        workflow_key=version.workflow.key,
        workflow_name=version.workflow.name,
        entry_node_id=definition["entry_node_id"],
        category=category_of(definition),
        nodes={n["id"]: n for n in definition["nodes"]},
        outgoing=outgoing,
        preference_category=preference_category_of(definition),
        required=required_of(definition),
        steps_read=steps_read(definition),
        default_locale=str(definition.get("default_locale") or ""),
        default_layout=str(definition.get("default_layout") or ""),
    )


EXPORT_FORMAT = "notiflow.workflow/1"


def workflow_export(*, workflow: Workflow) -> dict[str, Any]:
    """A workflow as a portable JSON document: the API's create body plus `format` and `version`
    (informational), so the same file feeds `import_workflow` and `POST /api/workflows/`."""
    definition = workflow.definition
    return {
        "format": EXPORT_FORMAT,
        "key": workflow.key,
        "name": workflow.name,
        "description": workflow.description,
        "active": workflow.active,
        "version": workflow.version,
        "category": category_of(definition),
        "preference_category": str(definition.get("preference_category") or ""),
        "required": required_of(definition),
        "default_locale": str(definition.get("default_locale") or ""),
        "default_layout": str(definition.get("default_layout") or ""),
        "entry_node_id": definition.get("entry_node_id"),
        "nodes": definition.get("nodes", []),
        "edges": definition.get("edges", []),
    }


def workflow_version_list(*, workflow: Workflow) -> QuerySet[WorkflowVersion]:
    """A workflow's versions, newest first."""
    return WorkflowVersion.objects.filter(workflow=workflow).order_by("-number")
