"""Preview: render every template of a definition against a sample payload, without sending.

It runs the engine's own semantics (workflows.semantics): the same context, the same rendering
with the same recipient checks, the same edge choice, so a preview that says OK is a run that
would not fail on its templates. `vars` holds a placeholder output for every sending node that
can run before the node being rendered, so `{{ vars.email_welcome.message_id }}` previews as it
will run. A variable that does not exist is an error naming it, as at run time.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings

from workflows.hooks import RUN_TENANT
from workflows.nodes import node_type_of
from workflows.nodes.base import NodePreview, RenderedField
from workflows.semantics import (
    PREFERENCES_URL,
    RenderError,
    execution_context,
    next_node_id,
    output_key,
    preference_page_url,
    steps_context,
    steps_read,
)
from workflows.semantics import outputs as outputs_of
from workflows.templating import (
    TemplateError,
    condition_variable_paths,
    render_budget,
    template_loops,
    template_variable_paths,
)


class PreviewBusy(Exception):
    """This process already renders as many previews as NOTIFLOW_PREVIEW_CONCURRENCY allows."""


_running_lock = threading.Lock()
_running = 0


@contextmanager
def _preview_slot() -> Iterator[None]:
    """One of the process's preview slots, or PreviewBusy at once: a web process has a few
    threads, and previews (each up to a render budget) must not take them all."""
    global _running
    with _running_lock:
        if _running >= settings.NOTIFLOW_PREVIEW_CONCURRENCY:
            raise PreviewBusy(
                f"{_running} preview(s) already rendering in this process "
                "(NOTIFLOW_PREVIEW_CONCURRENCY): busy, try again in a few seconds"
            )
        _running += 1
    try:
        yield
    finally:
        with _running_lock:
            _running -= 1


__all__ = [
    "NodePreview",
    "PreviewBusy",
    "PreviewTenant",
    "RenderedField",
    "WorkflowPreview",
    "sample_payload",
    "workflow_preview",
]

VarPath = tuple[str, ...]  # a variable's path, e.g. ("payload", "user", "email")


@dataclass(frozen=True)
class PreviewTenant:
    """A tenant as a run of it sees it (workflows.hooks.RUN_TENANT): its `tenant` context and its
    default locale."""

    context: dict[str, Any]
    default_locale: str


def preview_tenant(tenant_id: str) -> PreviewTenant | None:
    """Tenant `tenant_id` as its runs see it, or None when no tenant has that id."""
    for lookup in RUN_TENANT:
        found = lookup(tenant_id)
        if found is not None:
            return PreviewTenant(*found)
    return None


@dataclass(frozen=True)
class WorkflowPreview:
    nodes: list[NodePreview]
    # The nodes a run with this payload would visit, following the first edge whose `when` holds.
    route: list[str]
    route_error: str = ""

    @property
    def ok(self) -> bool:
        return not self.route_error and all(n.ok for n in self.nodes)


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
    recipient: dict[str, Any] | None = None,
    locale: str = "",
    tenant: PreviewTenant | None = None,
) -> WorkflowPreview:
    """Render each node's templates in definition order, and trace the route of this payload.

    `workflow` is the context's `workflow` object (`key`, `name`, `version`); `recipient`, when
    given, the context's `recipient` (a profile as a run sees it: `id`, `email`, `name`,
    `properties`...), so `{{ recipient.name }}`, a send without `to` and a window without a zone
    preview as that person's run would; `locale`, a trigger's `locale` (first in the locale
    chain, with the recipient's and the definition's `default_locale` after it), so translated
    and formatted fields preview as that run's would; `tenant` (preview_tenant), the tenant of
    the run, so `tenant.*`, its catalogs, its layout and its default locale preview as a run of
    it would (docs/tenants.md). Never raises for a
    template problem: each field carries its value or its error. The whole preview renders within
    one render budget, a node's (past it, every field left says so), and at most
    NOTIFLOW_PREVIEW_CONCURRENCY previews run at once in a process: PreviewBusy otherwise.
    """
    with _preview_slot(), render_budget():
        return _workflow_preview(definition, payload, workflow, now, recipient, locale, tenant)


def _workflow_preview(
    definition: dict[str, Any],
    payload: dict[str, Any],
    workflow: dict[str, Any],
    now: datetime | None,
    recipient: dict[str, Any] | None,
    locale: str,
    tenant: PreviewTenant | None,
) -> WorkflowPreview:
    now = now or datetime.now(UTC)
    nodes = [n for n in definition.get("nodes", []) if isinstance(n, dict) and "id" in n]
    edges = [e for e in definition.get("edges", []) if isinstance(e, dict)]
    by_id = {n["id"]: n for n in nodes}
    # The definition's default layout, as a run's context has it (workflows.layouts).
    layout_workflow = dict(workflow)
    if definition.get("default_layout"):
        layout_workflow["default_layout"] = str(definition["default_layout"])
    # As if each message was sent, no report yet.
    steps = steps_context(dict.fromkeys(steps_read(definition), "sent"))

    def context(vars: dict[str, Any]) -> dict[str, Any]:
        trigger = {"id": "preview", "idempotency_key": "preview", "created_at": now.isoformat()}
        built = execution_context(
            payload=payload,
            vars=vars,
            trigger=trigger,
            workflow=layout_workflow,
            now=now,
            recipient=recipient,
            trigger_locale=locale,
            default_locale=str(definition.get("default_locale") or ""),
            tenant=tenant.context if tenant is not None else None,
            tenant_locale=tenant.default_locale if tenant is not None else "",
        )
        if steps:
            built["steps"] = steps
        # A person's run links their page; the preview, a placeholder token (it signs nothing).
        if recipient is not None and (link := preference_page_url("preview")):
            built[PREFERENCES_URL] = link
        return built

    ancestors = _ancestors(list(by_id), edges)
    outputs: dict[str, dict[str, Any]] = {}  # by output key, for the sending nodes
    previews: dict[str, NodePreview] = {}
    # Upstream first, so each node's `vars` hold the (placeholder) outputs of its ancestors.
    for node in sorted(nodes, key=lambda n: len(ancestors[n["id"]])):
        upstream = {
            key: outputs[key]
            for key in (output_key(by_id[a]) for a in ancestors[node["id"]])
            if key in outputs
        }
        preview = _node_preview(node, context(upstream), now)
        previews[node["id"]] = preview
        node_type = node_type_of(node)
        if node_type is not None and outputs_of(node):
            placeholder = node_type.placeholder(node, preview=preview, payload=payload, now=now)
            outputs[output_key(node)] = placeholder

    route, route_error = _route(definition.get("entry_node_id"), by_id, edges, context, outputs)
    return WorkflowPreview([previews[n["id"]] for n in nodes], route, route_error)


def _node_preview(node: dict[str, Any], context: dict[str, Any], now: datetime) -> NodePreview:
    """What the node's type previews (workflows.nodes), or the error a run would fail with."""
    kind = str(node.get("type"))
    node_type = node_type_of(node)
    if node_type is None:
        return NodePreview(node["id"], kind)
    try:
        return node_type.preview(node, context, now)
    except RenderError as exc:
        return NodePreview(node["id"], kind, error=str(exc))
    except (ValueError, TypeError, KeyError) as exc:  # a definition the validator refuses
        return NodePreview(node["id"], kind, note=f"invalid {kind}: {exc}")


def _route(
    entry: Any,
    by_id: dict[str, dict[str, Any]],
    edges: list[dict[str, Any]],
    context: Any,
    outputs: dict[str, dict[str, Any]],
) -> tuple[list[str], str]:
    """The nodes a run visits, each edge chosen as the engine chooses it, seeing the outputs of
    the sending nodes visited so far."""
    current = entry
    route: list[str] = []
    vars: dict[str, Any] = {}
    while isinstance(current, str) and current in by_id and current not in route:
        route.append(current)
        key = output_key(by_id[current])
        if key in outputs:
            vars = {**vars, key: outputs[key]}
        try:
            current = next_node_id((e for e in edges if e.get("from") == current), context(vars))
        except TemplateError as exc:
            return route, str(exc)
    return route, ""


_SAMPLE_VALUES = (
    ("timezone", "Europe/Berlin"),
    ("tz", "Europe/Berlin"),
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


def _sample_value(name: str, now: datetime) -> str:
    lowered = name.lower()
    if lowered.endswith(("_at", "_time")):  # a time, as a delay's `until` reads it
        return (now + timedelta(days=1)).replace(microsecond=0).isoformat()
    return next((value for hint, value in _SAMPLE_VALUES if hint in lowered), f"sample {name}")


def _loop_paths(source: str, digests: set[str]) -> tuple[list[VarPath], set[VarPath]]:
    """The payload paths a template reads through its loops, and the payload paths it loops over.

    `{% for e in vars.digest_x.events %}{{ e.author }}` reads `payload.author` of every run the
    digest gathered (its events are their payloads); `{% for i in payload.items %}{{ i.sku }}`
    reads `payload.items` as a list of objects with a `sku`."""
    paths: list[VarPath] = []
    lists: set[VarPath] = set()
    for iterable, tails in template_loops(source):
        if len(iterable) == 3 and iterable[0] == "vars" and iterable[1] in digests:
            base: VarPath = ("payload",)
        elif len(iterable) > 1 and iterable[0] == "payload":
            base = iterable
            lists.add(base)
        else:
            continue
        paths.extend((*base, *tail) for tail in tails)
    return paths, lists


def sample_payload(definition: dict[str, Any], *, now: datetime | None = None) -> dict[str, Any]:
    """A payload with a plausible value at every `payload.…` path the templates and conditions
    read, as a starting point for the preview form. Paths read through a digest's events are
    the payload's own (each event is a gathered run's payload); a payload path a template loops
    over is a list of one sample item."""
    nodes = [n for n in definition.get("nodes", []) if isinstance(n, dict)]
    gatherers = [
        n for n in nodes if "id" in n and (kind := node_type_of(n)) and kind.gathers_payloads
    ]
    digests = {output_key(n) for n in gatherers}
    paths: list[VarPath] = []
    lists: set[VarPath] = set()
    for node in nodes:
        node_type = node_type_of(node)
        for source in node_type.template_sources(node) if node_type else ():
            paths.extend(template_variable_paths(source))
            looped, iterated = _loop_paths(source, digests)
            paths.extend(looped)
            lists |= iterated
    for edge in definition.get("edges", []):
        if isinstance(edge, dict) and isinstance(edge.get("when"), str) and edge["when"].strip():
            paths.extend(condition_variable_paths(edge["when"]))
    now = now or datetime.now(UTC)
    sample: dict[str, Any] = {}
    # Shortest first: a path that is a prefix of a longer one is then replaced by an object.
    for path in sorted({p for p in paths if len(p) > 1 and p[0] == "payload"}, key=len):
        *parents, leaf = path[1:]
        target = sample
        for part in parents:
            if not isinstance(target.get(part), dict):
                target[part] = {}
            target = target[part]
        target.setdefault(leaf, _sample_value(leaf, now))
    # Longest first, so that a list inside a list's item is wrapped before its parent is.
    for path in sorted(lists, key=len, reverse=True):
        holder: Any = sample
        for part in path[1:-1]:
            holder = holder.get(part) if isinstance(holder, dict) else None
        if isinstance(holder, dict) and path[-1] in holder:
            holder[path[-1]] = [holder[path[-1]]]
    return sample
