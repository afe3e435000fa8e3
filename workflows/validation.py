"""The one workflow validator, used by the API, the admin and the import command."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings

from workflows.definition import (
    CATEGORIES,
    MARKETING,
    MAX_DELAY,
    NODE_TYPES,
    PROVIDER_NAME,
    THROTTLE_MAX,
    TRANSACTIONAL,
    duration_parse,
)
from workflows.templating import (
    TemplateError,
    condition_check,
    template_check,
    template_has_markup,
)
from workflows.timing import WEEKDAYS, clock_parse, zone_parse

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

    Checks: sizes (the whole definition, nodes, edges, each template: docs/security.md), before
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

    node_ids = _check_nodes(nodes, errors)
    adjacency = _check_edges(edges, node_ids, errors)
    category = definition.get("category", TRANSACTIONAL)
    if category not in CATEGORIES:
        errors.append(ValidationError("category", f"must be one of {', '.join(CATEGORIES)}"))
    elif category == MARKETING:
        _check_marketing(nodes if isinstance(nodes, list) else [], errors)

    entry = definition.get("entry_node_id")
    if not isinstance(entry, str) or not entry:
        errors.append(ValidationError("entry_node_id", "is required"))
    elif entry not in node_ids:
        errors.append(ValidationError("entry_node_id", f"node {entry!r} does not exist"))
    elif not errors:
        _check_graph(entry, node_ids, adjacency, errors)
    return errors


def _check_sizes(definition: dict[str, Any]) -> list[ValidationError]:
    """The limits of docs/security.md: the whole definition, the number of nodes and edges, and
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


def _check_nodes(nodes: list[Any], errors: list[ValidationError]) -> list[str]:
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
        node_type = NODE_TYPES.get(node.get("type"))  # type: ignore[arg-type]
        if node_type is None:
            known = ", ".join(sorted(NODE_TYPES))
            errors.append(
                ValidationError(
                    f"{where}.type", f"unknown node type {node.get('type')!r} ({known})", node_id
                )
            )
            continue
        fields = (*node_type.required, *node_type.optional)
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
        if "max_recipients" in node:
            _check_max_recipients(node["max_recipients"], where, node_id, errors)
        if not isinstance(node.get("skip_suppressed", False), bool):
            errors.append(
                ValidationError(f"{where}.skip_suppressed", "must be true or false", node_id)
            )
        provider = node.get("provider")
        if provider is not None and not (
            isinstance(provider, str) and PROVIDER_NAME.match(provider)
        ):
            errors.append(
                ValidationError(
                    f"{where}.provider",
                    "must be a provider's name: lower-case letters, digits and _, starting "
                    "with a letter",
                    node_id,
                )
            )
        for field in node_type.templates:
            value = node.get(field)
            if value is None or (field not in node_type.required and value == ""):
                continue
            if not isinstance(value, str):
                errors.append(ValidationError(f"{where}.{field}", "must be a string", node_id))
                continue
            try:
                template_check(value)
            except TemplateError as exc:
                errors.append(ValidationError(f"{where}.{field}", f"template: {exc}", node_id))
        if node_type.name in _TYPE_CHECKS:
            _TYPE_CHECKS[node_type.name](node, where, node_id, errors)
    return seen


def _check_marketing(nodes: list[Any], errors: list[ValidationError]) -> None:
    """Marketing email goes to one recipient per message: each carries that recipient's own
    one-click unsubscribe link."""
    for index, node in enumerate(nodes):
        if (
            isinstance(node, dict)
            and node.get("type") == "email"
            and node.get("max_recipients", 1) not in (1, None)
        ):
            errors.append(
                ValidationError(
                    f"nodes[{index}].max_recipients",
                    "must be 1 in a marketing workflow (each message carries its "
                    "recipient's own unsubscribe link)",
                    str(node.get("id")),
                )
            )


def _check_max_recipients(value: Any, where: str, node_id: str, errors: list[ValidationError]):
    ceiling = settings.NOTIFLOW_MAX_RECIPIENTS
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= ceiling:
        errors.append(
            ValidationError(
                f"{where}.max_recipients", f"must be a whole number from 1 to {ceiling}", node_id
            )
        )


def _check_delay(node: dict[str, Any], where: str, node_id: str, errors: list[ValidationError]):
    delay_ms, duration = node.get("delay_ms"), node.get("duration")
    given = [name for name in ("delay_ms", "duration", "until") if node.get(name) not in (None, "")]
    if not given:
        errors.append(
            ValidationError(f"{where}.delay_ms", "delay_ms, duration or until is required", node_id)
        )
        return
    if len(given) > 1:
        errors.append(
            ValidationError(
                f"{where}.{given[1]}", f"give one of {' or '.join(given)}, not both", node_id
            )
        )
        return
    if given == ["until"]:
        return  # a template (checked above), rendered and parsed at run time
    if delay_ms is not None:
        if isinstance(delay_ms, bool) or not isinstance(delay_ms, int) or delay_ms < 0:
            errors.append(
                ValidationError(f"{where}.delay_ms", "must be a non-negative integer", node_id)
            )
            return
        if delay_ms > MAX_DELAY / timedelta(milliseconds=1):  # before timedelta can overflow
            errors.append(ValidationError(f"{where}.delay_ms", "must be at most 365 days", node_id))
            return
        delay = timedelta(milliseconds=delay_ms)
    else:
        try:
            delay = duration_parse(str(duration))
        except ValueError as exc:
            errors.append(ValidationError(f"{where}.duration", str(exc), node_id))
            return
    if delay > MAX_DELAY:
        errors.append(ValidationError(f"{where}.delay_ms", "must be at most 365 days", node_id))


def _check_window(node: dict[str, Any], where: str, node_id: str, errors: list[ValidationError]):
    clocks = {}
    for name in ("start", "end"):
        try:
            clocks[name] = clock_parse(str(node.get(name, "")))
        except ValueError as exc:
            if node.get(name) not in (None, ""):  # a missing one is reported as required
                errors.append(ValidationError(f"{where}.{name}", str(exc), node_id))
    if len(clocks) == 2 and clocks["start"] == clocks["end"]:
        errors.append(
            ValidationError(f"{where}.end", "must differ from start (a window of no time)", node_id)
        )
    days = node.get("days")
    if days is not None and (
        not isinstance(days, list)
        or not days
        or any(day not in WEEKDAYS for day in days)
        or len(set(days)) != len(days)
    ):
        errors.append(
            ValidationError(
                f"{where}.days",
                f"must be a non-empty list of distinct days from {', '.join(WEEKDAYS)}",
                node_id,
            )
        )
    zone = node.get("timezone")
    if isinstance(zone, str) and zone.strip() and not template_has_markup(zone):
        try:  # a fixed zone is checked now; one from a template when it renders
            zone_parse(zone)
        except ValueError as exc:
            errors.append(ValidationError(f"{where}.timezone", str(exc), node_id))


def _check_throttle(node: dict[str, Any], where: str, node_id: str, errors: list[ValidationError]):
    limit = node.get("limit")
    if limit is not None and (
        isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= THROTTLE_MAX
    ):
        errors.append(
            ValidationError(
                f"{where}.limit", f"must be a whole number from 1 to {THROTTLE_MAX}", node_id
            )
        )
    _check_window_length(node, where, node_id, errors)


def _check_window_length(
    node: dict[str, Any], where: str, node_id: str, errors: list[ValidationError]
):
    """A throttle's or digest's `window`: a duration from 1 second to 365 days."""
    window = node.get("window")
    if window in (None, ""):
        return  # reported as required
    try:
        length = duration_parse(str(window))
    except ValueError as exc:
        errors.append(ValidationError(f"{where}.window", str(exc), node_id))
        return
    if not timedelta(seconds=1) <= length <= MAX_DELAY:
        errors.append(
            ValidationError(f"{where}.window", "must be from 1 second to 365 days", node_id)
        )


_TYPE_CHECKS = {
    "delay": _check_delay,
    "window": _check_window,
    "throttle": _check_throttle,
    "digest": _check_window_length,
}


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
