"""The run semantics, pure: what a step sees, what a node renders to, where a run goes next.

The engine (workers.services.engine) and the preview (workflows.preview) both call these, so the
preview says OK only for what a run would do, and a node type is declared once: its fields in
workflows.definition.NODE_TYPES, its render checks here. No database, no provider, no clock but
the `now` passed in.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from workflows.definition import NODE_TYPES, delay_of
from workflows.templating import TemplateError, condition_holds, template_render

Rendered = dict[str, str]


class RenderError(Exception):
    """A node whose fields do not render to something that can be sent: a template that fails
    (an undefined variable), or a recipient that is empty or malformed. Permanent: running the
    same node on the same context again fails the same way.

    The message names the node (and the field, when one failed), as a run's `last_error` does;
    `detail` is the problem alone, for showing beside the field.
    """

    def __init__(self, message: str, *, field: str | None = None, detail: str = ""):
        super().__init__(message)
        self.field = field
        self.detail = detail or message


def execution_context(
    *,
    payload: dict[str, Any],
    vars: dict[str, Any],
    trigger: dict[str, Any],
    workflow: dict[str, Any],
    now: datetime,
) -> dict[str, Any]:
    """What templates and conditions see (all JSON-serialisable): `payload`, `vars` (outputs of
    earlier nodes), `trigger` (`id`, `idempotency_key`, `created_at`), `workflow` (`key`,
    `name`, `version`) and `now`."""
    return {
        "payload": payload,
        "vars": vars,
        "trigger": trigger,
        "workflow": workflow,
        "now": now.isoformat(),
    }


def sends(node: dict[str, Any]) -> bool:
    """Whether running this node calls a provider (and so has a send ledger row)."""
    node_type = NODE_TYPES.get(str(node.get("type")))
    return node_type is not None and node_type.sends


def sending_types() -> list[str]:
    return [name for name, node_type in NODE_TYPES.items() if node_type.sends]


def output_key(node: dict[str, Any]) -> str:
    """Where a sending node's output lands in `vars`: `email_<id>`, `sms_<id>`."""
    return f"{node['type']}_{node['id']}"


def rendered_fields(node: dict[str, Any]) -> Iterable[str]:
    """The node's template fields that a run renders: every required one, and the optional
    ones that are set."""
    node_type = NODE_TYPES.get(str(node.get("type")))
    if node_type is None:
        return []
    return [
        name
        for name in node_type.templates
        if name in node_type.required or node.get(name) not in (None, "")
    ]


def field_render(node: dict[str, Any], name: str, context: dict[str, Any]) -> str:
    """One template field of `node`, rendered; RenderError naming the node and field."""
    try:
        return template_render(str(node.get(name, "")), context)
    except TemplateError as exc:
        message = f"node {node['id']!r} field {name!r}: {exc}"
        raise RenderError(message, field=name, detail=str(exc)) from exc


def recipient_check(node: dict[str, Any], rendered: Rendered) -> Rendered:
    """The rendered fields with `to` stripped, or RenderError when it cannot be sent to."""
    recipient = rendered.get("to", "").strip()
    if not recipient:
        raise RenderError(f"node {node['id']!r}: recipient 'to' rendered empty")
    if node["type"] == "email" and "@" not in recipient:
        raise RenderError(f"node {node['id']!r}: {recipient!r} is not an email address")
    return {**rendered, "to": recipient}


def node_render(node: dict[str, Any], context: dict[str, Any]) -> Rendered:
    """Every field a sending node sends, rendered and checked; RenderError at the first problem."""
    rendered = {name: field_render(node, name, context) for name in rendered_fields(node)}
    return recipient_check(node, rendered)


def node_wait(node: dict[str, Any]) -> timedelta:
    """How long the run waits after this node before the next one is due."""
    return delay_of(node) if node.get("type") == "delay" else timedelta(0)


def next_node_id(edges: Iterable[dict[str, Any]], context: dict[str, Any]) -> str | None:
    """The target of the first of a node's outgoing `edges` whose `when` holds in `context` (an
    edge without `when` always holds), or None: the run ends. TemplateError when a condition
    cannot be evaluated."""
    for edge in edges:
        if condition_holds(edge.get("when"), context):
            return str(edge["to"])
    return None
