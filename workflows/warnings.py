"""What a valid workflow will not do as its author expects: said when it is saved (the API's
create and update answer `warnings`, the admin a warning message), never refused. Other apps
add theirs to workflows.hooks.SAVE_WARNING_HOOKS (`workflows` imports none of them: the
registry adds "no live worker serves its queue")."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from workflows.hooks import SAVE_WARNING_HOOKS
from workflows.models import Workflow
from workflows.nodes import node_type_of
from workflows.semantics import PREFERENCES_URL
from workflows.templating import read_paths


def workflow_warnings(*, workflow: Workflow) -> list[str]:
    """Every warning about the saved `workflow`: its definition's, then each hook's."""
    found = definition_warnings(workflow.definition)
    for hook in SAVE_WARNING_HOOKS:
        found.extend(hook(workflow))
    return found


def definition_warnings(definition: dict[str, Any]) -> list[str]:
    """A template that links `preferences_url` while NOTIFLOW_PUBLIC_URL is empty: its runs
    would fail at that node (there is no public page to link to)."""
    if settings.NOTIFLOW_PUBLIC_URL:
        return []
    found = []
    for node in definition.get("nodes", []):
        node_type = node_type_of(node)
        sources = node_type.template_sources(node) if node_type else []
        if any(path[:1] == (PREFERENCES_URL,) for s in sources for path in read_paths(s)):
            found.append(
                f"node {node['id']!r} uses {{{{ {PREFERENCES_URL} }}}} but NOTIFLOW_PUBLIC_URL "
                "(the service's public address) is not set: its runs will fail at that node"
            )
    return found
