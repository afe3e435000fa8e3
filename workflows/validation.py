"""The one workflow validator, used by the API, the admin and the import command."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings

from workflows.definition import CATEGORIES, MARKETING, TRANSACTIONAL, preference_problems
from workflows.layouts import layout_problem
from workflows.locales import locale_problem
from workflows.nodes import NODE_TYPES, node_type_of
from workflows.partials import partial_get
from workflows.templating import TemplateError, condition_check, template_check
from workflows.translation import default_locales, message_lookup

# Node ids appear in Message-IDs, idempotency keys and vars keys: keep them plain.
_NODE_ID = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
_EDGE_FIELDS = frozenset({"from", "to", "when"})


@dataclass(frozen=True)
class ValidationError:
    """One problem, located by `field` (e.g. "nodes[1].subject") and, when known, node or edge."""

    field: str
    message: str
    node: str | None = None
    edge: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


def workflow_validate(definition: Any) -> list[ValidationError]:
    """Every problem with `definition`, or an empty list when it is a valid DAG.

    Checks: sizes (the whole definition, nodes, edges, each template: docs/security/content.md), before
    anything is parsed; shape; node ids unique; node type known; no unknown field; required
    fields present; Liquid templates and edge conditions parse; delays valid; max_recipients in
    range; entry node exists; edges reference existing nodes; no cycle; every node reachable
    from the entry.
    """
    if not isinstance(definition, dict):
        return [ValidationError("definition", "must be an object")]
    # Sizes first, before any template is parsed: a huge definition costs nothing to refuse.
    size_errors = _check_sizes(definition)
    if size_errors:
        return size_errors
    errors: list[ValidationError] = []
    nodes = definition.get("nodes")
    edges = definition.get("edges", [])
    if not isinstance(nodes, list) or not nodes:
        errors.append(ValidationError("nodes", "must be a non-empty list of nodes"))
        nodes = []
    if not isinstance(edges, list):
        errors.append(ValidationError("edges", "must be a list of edges"))
        edges = []

    node_ids = _check_nodes(nodes, _default_locales(definition, errors), errors)
    default_layout = definition.get("default_layout")
    if default_layout not in (None, "") and (problem := layout_problem(default_layout)):
        errors.append(ValidationError("default_layout", problem))
    adjacency = _check_edges(edges, node_ids, errors)
    category = definition.get("category", TRANSACTIONAL)
    if category not in CATEGORIES:
        errors.append(ValidationError("category", f"must be one of {', '.join(CATEGORIES)}"))
    else:
        _check_category(nodes if isinstance(nodes, list) else [], category == MARKETING, errors)
    errors.extend(
        ValidationError(field, message) for field, message in preference_problems(definition)
    )

    entry = definition.get("entry_node_id")
    if not isinstance(entry, str) or not entry:
        errors.append(ValidationError("entry_node_id", "is required"))
    elif entry not in node_ids:
        errors.append(ValidationError("entry_node_id", f"node {entry!r} does not exist"))
    elif not errors:
        _check_graph(entry, node_ids, adjacency, errors)
        if not errors:
            _check_graph_problems(nodes, adjacency, errors)
    return errors


def _check_sizes(definition: dict[str, Any]) -> list[ValidationError]:
    """The limits of docs/security/content.md: the whole definition, the number of nodes and edges, and
    each template's source."""
    limits = settings
    size = len(json.dumps(definition, default=str))
    if size > limits.NOTIFLOW_WORKFLOW_MAX_BYTES:
        return [
            ValidationError(
                "definition",
                f"is {size} bytes of JSON, more than {limits.NOTIFLOW_WORKFLOW_MAX_BYTES} "
                "(NOTIFLOW_WORKFLOW_MAX_BYTES)",
            )
        ]
    errors = []
    for name, limit, setting in (
        ("nodes", limits.NOTIFLOW_WORKFLOW_MAX_NODES, "NOTIFLOW_WORKFLOW_MAX_NODES"),
        ("edges", limits.NOTIFLOW_WORKFLOW_MAX_EDGES, "NOTIFLOW_WORKFLOW_MAX_EDGES"),
    ):
        items = definition.get(name)
        if isinstance(items, list) and len(items) > limit:
            errors.append(
                ValidationError(name, f"has {len(items)} {name}, more than {limit} ({setting})")
            )
    nodes = definition.get("nodes")
    for index, node in enumerate(nodes if isinstance(nodes, list) else []):
        if not isinstance(node, dict):
            continue
        for field, value in node.items():
            if isinstance(value, str) and len(value) > limits.NOTIFLOW_TEMPLATE_MAX_BYTES:
                errors.append(
                    ValidationError(
                        f"nodes[{index}].{field}",
                        f"is {len(value)} characters, more than "
                        f"{limits.NOTIFLOW_TEMPLATE_MAX_BYTES} (NOTIFLOW_TEMPLATE_MAX_BYTES)",
                        node.get("id") if isinstance(node.get("id"), str) else None,
                    )
                )
    return errors


def _default_locales(definition: dict[str, Any], errors: list[ValidationError]) -> tuple[str, ...]:
    """The end of every run's locale chain (the workflow's `default_locale`, the installation's):
    where each key its templates translate must be found. A `default_locale` that is not a
    locale is a problem, and the chain then the installation's alone."""
    default_locale = definition.get("default_locale")
    if default_locale in (None, ""):
        return default_locales("")
    if problem := locale_problem(default_locale):
        errors.append(ValidationError("default_locale", problem))
        return default_locales("")
    return default_locales(default_locale)


def _check_translations(
    keys: list[str],
    locales: tuple[str, ...],
    where: str,
    node_id: str,
    errors: list[ValidationError],
) -> None:
    """A key a template translates (a literal piped to `t`) must be in the catalog of a locale
    every run's chain ends with: else some run would fail on it."""
    for key in keys:
        if message_lookup(key, locales) is None:
            errors.append(
                ValidationError(
                    where,
                    f"translation key {key!r} is in no catalog of the workflow's default "
                    f"locales ({' -> '.join(locales)})",
                    node_id,
                )
            )


def _check_partials(
    names: list[str], where: str, node_id: str, errors: list[ValidationError]
) -> None:
    """A partial a template renders by a literal name must exist: else every run fails on it."""
    for name in names:
        if partial_get(name) is None:
            errors.append(ValidationError(where, f"partial {name!r} does not exist", node_id))


def _check_nodes(
    nodes: list[Any], locales: tuple[str, ...], errors: list[ValidationError]
) -> list[str]:
    seen: list[str] = []
    for index, node in enumerate(nodes):
        where = f"nodes[{index}]"
        if not isinstance(node, dict):
            errors.append(ValidationError(where, "must be an object"))
            continue
        node_id = node.get("id")
        if not isinstance(node_id, str) or not node_id.strip():
            errors.append(ValidationError(f"{where}.id", "is required"))
            continue
        if not _NODE_ID.match(node_id):
            errors.append(
                ValidationError(f"{where}.id", "must be 1-100 letters, digits, '_' or '-'", node_id)
            )
            continue
        if node_id in seen:
            errors.append(ValidationError(f"{where}.id", f"duplicate node id {node_id!r}", node_id))
            continue
        seen.append(node_id)
        node_type = node_type_of(node)
        if node_type is None:
            known = ", ".join(sorted(NODE_TYPES))
            errors.append(
                ValidationError(
                    f"{where}.type", f"unknown node type {node.get('type')!r} ({known})", node_id
                )
            )
            continue
        fields = node_type.fields
        for field in sorted(set(node) - {"id", "type", *fields}):
            errors.append(
                ValidationError(
                    f"{where}.{field}",
                    f"is not a field of {node_type.name} nodes ({', '.join(sorted(fields))})",
                    node_id,
                )
            )
        for field in node_type.required:
            value = node.get(field)
            if value is None or (isinstance(value, str) and not value.strip()):
                errors.append(ValidationError(f"{where}.{field}", "is required", node_id))
        for field in node_type.templates:
            value = node.get(field)
            if value is None or (field not in node_type.required and value == ""):
                continue
            if not isinstance(value, str):
                errors.append(ValidationError(f"{where}.{field}", "must be a string", node_id))
                continue
            try:
                uses = template_check(value)
            except TemplateError as exc:
                errors.append(ValidationError(f"{where}.{field}", f"template: {exc}", node_id))
            else:
                _check_translations(uses.keys, locales, f"{where}.{field}", node_id, errors)
                _check_partials(uses.partials, f"{where}.{field}", node_id, errors)
        for field, message in node_type.problems(node):  # what the node type checks itself
            errors.append(ValidationError(f"{where}.{field}", message, node_id))
    return seen


def _check_category(nodes: list[Any], marketing: bool, errors: list[ValidationError]) -> None:
    """What the workflow's category forbids, as each node type says (marketing email goes to
    one recipient per message)."""
    for index, node in enumerate(nodes):
        node_type = node_type_of(node) if isinstance(node, dict) else None
        if node_type is None:
            continue
        for field, message in node_type.category_problems(node, marketing=marketing):
            errors.append(ValidationError(f"nodes[{index}].{field}", message, str(node.get("id"))))


def _check_edges(
    edges: list[Any], node_ids: list[str], errors: list[ValidationError]
) -> dict[str, list[str]]:
    adjacency: dict[str, list[str]] = {node_id: [] for node_id in node_ids}
    for index, edge in enumerate(edges):
        where = f"edges[{index}]"
        if not isinstance(edge, dict):
            errors.append(ValidationError(where, "must be an object", edge=index))
            continue
        for field in sorted(set(edge) - _EDGE_FIELDS):
            errors.append(
                ValidationError(
                    f"{where}.{field}", "is not a field of an edge (from, to, when)", edge=index
                )
            )
        ends = []
        for end in ("from", "to"):
            value = edge.get(end)
            if not isinstance(value, str) or value not in adjacency:
                errors.append(
                    ValidationError(f"{where}.{end}", f"node {value!r} does not exist", edge=index)
                )
            ends.append(value)
        when = edge.get("when")
        if when is not None:
            if not isinstance(when, str):
                errors.append(ValidationError(f"{where}.when", "must be a string", edge=index))
            else:
                try:
                    condition_check(when)
                except TemplateError as exc:
                    errors.append(ValidationError(f"{where}.when", f"condition: {exc}", edge=index))
        source, target = edge.get("from"), edge.get("to")
        if source in adjacency and target in adjacency:
            adjacency[str(source)].append(str(target))
    return adjacency


def _check_graph_problems(
    nodes: list[dict[str, Any]], adjacency: dict[str, list[str]], errors: list[ValidationError]
) -> None:
    """What each node type checks of the nodes before it (NodeType.graph_problems). The graph
    is acyclic and every node reachable from the entry here, so a node's ancestors are the nodes
    that precede it on some path; they are gathered parents first (Kahn's order), one set union
    per edge."""
    waiting = dict.fromkeys(adjacency, 0)
    for targets in adjacency.values():
        for target in targets:
            waiting[target] += 1
    ancestors: dict[str, set[str]] = {node_id: set() for node_id in adjacency}
    ready = [node_id for node_id, count in waiting.items() if count == 0]
    while ready:
        node_id = ready.pop()
        for target in adjacency[node_id]:
            ancestors[target] |= ancestors[node_id]
            ancestors[target].add(node_id)
            waiting[target] -= 1
            if waiting[target] == 0:
                ready.append(target)
    by_id = {node["id"]: node for node in nodes}
    for index, node in enumerate(nodes):
        node_type = node_type_of(node)
        if node_type is None:
            continue
        before = [by_id[node_id] for node_id in ancestors[node["id"]]]
        for field, message in node_type.graph_problems(node, before=before):
            errors.append(ValidationError(f"nodes[{index}].{field}", message, node["id"]))


def _check_graph(
    entry: str, node_ids: list[str], adjacency: dict[str, list[str]], errors: list[ValidationError]
) -> None:
    # Iterative DFS with colours: grey on the stack (a back edge to grey is a cycle), black done.
    colour = dict.fromkeys(node_ids, "white")
    for start in [entry, *node_ids]:
        if colour[start] != "white":
            continue
        colour[start] = "grey"
        stack = [(start, iter(adjacency[start]))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                colour[node] = "black"
                stack.pop()
            elif colour[child] == "grey":
                errors.append(
                    ValidationError("edges", f"cycle through {node!r} -> {child!r}", node=child)
                )
                return
            elif colour[child] == "white":
                colour[child] = "grey"
                stack.append((child, iter(adjacency[child])))
    reachable = {entry}
    frontier = [entry]
    while frontier:
        for child in adjacency[frontier.pop()]:
            if child not in reachable:
                reachable.add(child)
                frontier.append(child)
    for node_id in node_ids:
        if node_id not in reachable:
            errors.append(
                ValidationError("nodes", f"node {node_id!r} is unreachable from the entry", node_id)
            )
