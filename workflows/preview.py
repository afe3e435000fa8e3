"""Preview: render every template of a definition against a sample payload, without sending.

The context has the engine's shape (payload, vars, trigger, workflow, now). `vars` holds a
placeholder output for every email and SMS node that can run before the node being rendered, so
`{{ vars.email_welcome.message_id }}` previews as it will run. Rendering is as strict as at run
time: a variable that does not exist is an error naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from workflows.definition import NODE_TYPES, delay_of
from workflows.templating import (
    TemplateError,
    condition_holds,
    condition_variable_paths,
    template_render,
    template_variable_paths,
)

OUTPUT_CHANNELS = ("email", "sms")


@dataclass(frozen=True)
class RenderedField:
    name: str
    value: str | None
    error: str | None = None


@dataclass(frozen=True)
class NodePreview:
    node_id: str
    node_type: str
    fields: list[RenderedField] = field(default_factory=list)
    note: str = ""

    @property
    def ok(self) -> bool:
        return all(f.error is None for f in self.fields)

    def value(self, name: str) -> str | None:
        return next((f.value for f in self.fields if f.name == name), None)


@dataclass(frozen=True)
class WorkflowPreview:
    nodes: list[NodePreview]
    # The nodes a run with this payload would visit, following the first edge whose `when` holds.
    route: list[str]
    route_error: str = ""

    @property
    def ok(self) -> bool:
        return not self.route_error and all(n.ok for n in self.nodes)


def _placeholder_output(node: dict[str, Any], to: str | None, now: datetime) -> dict[str, Any]:
    return {
        "message_id": f"<preview.{node['id']}@notiflow.local>",
        "to": to or "",
        "sent_at": now.isoformat(),
    }


def _ancestors(node_ids: list[str], edges: list[dict[str, Any]]) -> dict[str, set[str]]:
    parents: dict[str, set[str]] = {n: set() for n in node_ids}
    for edge in edges:
        if edge.get("to") in parents and edge.get("from") in parents:
            parents[edge["to"]].add(edge["from"])
    found: dict[str, set[str]] = {}
    for node_id in node_ids:
        seen: set[str] = set()
        frontier = list(parents[node_id])
        while frontier:
            parent = frontier.pop()
            if parent not in seen:
                seen.add(parent)
                frontier.extend(parents[parent])
        found[node_id] = seen
    return found


def workflow_preview(
    *,
    definition: dict[str, Any],
    payload: dict[str, Any],
    workflow: dict[str, Any],
    now: datetime | None = None,
) -> WorkflowPreview:
    """Render each node's templates in definition order, and trace the route of this payload.

    `workflow` is the context's `workflow` object (`key`, `name`, `version`). Never raises for a
    template problem: each field carries its value or its error.
    """
    now = now or datetime.now(UTC)
    nodes = [n for n in definition.get("nodes", []) if isinstance(n, dict) and "id" in n]
    edges = [e for e in definition.get("edges", []) if isinstance(e, dict)]
    base = {
        "payload": payload,
        "trigger": {"id": "preview", "idempotency_key": "preview", "created_at": now.isoformat()},
        "workflow": workflow,
        "now": now.isoformat(),
    }
    ancestors = _ancestors([n["id"] for n in nodes], edges)
    outputs: dict[str, dict[str, Any]] = {}
    previews: dict[str, NodePreview] = {}
    # Upstream first, so each node's `vars` hold the (placeholder) outputs of its ancestors.
    for node in sorted(nodes, key=lambda n: len(ancestors[n["id"]])):
        upstream = {
            f"{kind}_{node_id}": outputs[node_id]
            for node_id, kind in ((a, _kind(nodes, a)) for a in ancestors[node["id"]])
            if node_id in outputs
        }
        previews[node["id"]] = _node_preview(node, {**base, "vars": upstream})
        if previews[node["id"]].node_type in OUTPUT_CHANNELS:
            outputs[node["id"]] = _placeholder_output(node, previews[node["id"]].value("to"), now)

    channel_outputs = {f"{_kind(nodes, k)}_{k}": v for k, v in outputs.items()}
    route, route_error = _route(definition, edges, {**base, "vars": {}}, channel_outputs)
    return WorkflowPreview([previews[n["id"]] for n in nodes], route, route_error)


def _kind(nodes: list[dict[str, Any]], node_id: str) -> str:
    return str(next(n.get("type") for n in nodes if n["id"] == node_id))


def _node_preview(node: dict[str, Any], context: dict[str, Any]) -> NodePreview:
    kind = str(node.get("type"))
    if kind == "delay":
        try:
            wait = delay_of(node)
            spelled = node.get("duration") or f"{node.get('delay_ms')} ms"
            return NodePreview(node["id"], kind, note=f"waits {spelled} ({wait})")
        except (ValueError, TypeError, KeyError) as exc:
            return NodePreview(node["id"], kind, note=f"invalid delay: {exc}")
    node_type = NODE_TYPES.get(kind)
    fields = []
    for name in node_type.templates if node_type else ():
        source = node.get(name)
        optional = node_type is not None and name not in node_type.required
        if not isinstance(source, str) or (optional and not source):
            continue
        try:
            fields.append(RenderedField(name, template_render(source, context)))
        except TemplateError as exc:
            fields.append(RenderedField(name, None, str(exc)))
    return NodePreview(node["id"], kind, fields)


def _route(
    definition: dict[str, Any],
    edges: list[dict[str, Any]],
    context: dict[str, Any],
    outputs: dict[str, dict[str, Any]],
) -> tuple[list[str], str]:
    kinds = {
        str(n.get("id")): n.get("type") for n in definition.get("nodes", []) if isinstance(n, dict)
    }
    current = definition.get("entry_node_id")
    route: list[str] = []
    while isinstance(current, str) and current in kinds and current not in route:
        route.append(current)
        key = f"{kinds[current]}_{current}"
        if key in outputs:
            context = {**context, "vars": {**context["vars"], key: outputs[key]}}
        following = None
        for edge in (e for e in edges if e.get("from") == current):
            try:
                if condition_holds(edge.get("when"), context):
                    following = edge.get("to")
                    break
            except TemplateError as exc:
                return route, str(exc)
        current = following
    return route, ""


_SAMPLE_VALUES = (
    ("email", "ada@example.com"),
    ("mail", "ada@example.com"),
    ("phone", "+15550100"),
    ("mobile", "+15550100"),
    ("first_name", "Ada"),
    ("last_name", "Lovelace"),
    ("name", "Ada"),
    ("url", "https://example.com/"),
    ("link", "https://example.com/"),
    ("code", "123456"),
)


def _sample_value(name: str) -> str:
    lowered = name.lower()
    return next((value for hint, value in _SAMPLE_VALUES if hint in lowered), f"sample {name}")


def sample_payload(definition: dict[str, Any]) -> dict[str, Any]:
    """A payload with a plausible value at every `payload.…` path the templates and conditions
    read, as a starting point for the preview form."""
    paths: list[tuple[str, ...]] = []
    for node in definition.get("nodes", []):
        node_type = NODE_TYPES.get(str(node.get("type"))) if isinstance(node, dict) else None
        for name in node_type.templates if node_type else ():
            if isinstance(node.get(name), str):
                paths.extend(template_variable_paths(node[name]))
    for edge in definition.get("edges", []):
        if isinstance(edge, dict) and isinstance(edge.get("when"), str) and edge["when"].strip():
            paths.extend(condition_variable_paths(edge["when"]))
    sample: dict[str, Any] = {}
    # Shortest first: a path that is a prefix of a longer one is then replaced by an object.
    for path in sorted({p for p in paths if len(p) > 1 and p[0] == "payload"}, key=len):
        *parents, leaf = path[1:]
        target = sample
        for part in parents:
            if not isinstance(target.get(part), dict):
                target[part] = {}
            target = target[part]
        target.setdefault(leaf, _sample_value(leaf))
    return sample
