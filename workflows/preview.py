"""Preview: render every template of a definition against a sample payload, without sending.

It runs the engine's own semantics (workflows.semantics): the same context, the same rendering
with the same recipient checks, the same edge choice, so a preview that says OK is a run that
would not fail on its templates. `vars` holds a placeholder output for every sending node that
can run before the node being rendered, so `{{ vars.email_welcome.message_id }}` previews as it
will run. A variable that does not exist is an error naming it, as at run time.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings

from workflows.definition import NODE_TYPES, delay_spelled
from workflows.semantics import (
    RenderError,
    execution_context,
    field_render,
    flow_key,
    next_node_id,
    output_key,
    recipient_check,
    rendered_fields,
    sends,
    timing_wait,
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


VarPath = tuple[str, ...]  # a variable's path, e.g. ("payload", "user", "email")


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
    # Why a run would fail at this node, in the words of its last_error: the first field that
    # does not render, or a recipient that cannot be sent to. Empty when it would not fail.
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error

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


def _placeholder_output(
    node: dict[str, Any], to: str | None, payload: dict[str, Any], now: datetime
) -> dict[str, Any]:
    """What a node leaves in vars, as the preview pretends it ran: a send's message, a throttle
    that let the run through, a digest of this payload alone."""
    if node.get("type") == "throttle":
        return {"throttled": False, "count": 1}
    if node.get("type") == "digest":
        moment = now.isoformat()
        return {
            "id": "preview",
            "count": 1,
            "events": [payload],
            "first_at": moment,
            "last_at": moment,
        }
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
    template problem: each field carries its value or its error. The whole preview renders within
    one render budget, a node's (past it, every field left says so), and at most
    NOTIFLOW_PREVIEW_CONCURRENCY previews run at once in a process: PreviewBusy otherwise.
    """
    with _preview_slot(), render_budget():
        return _workflow_preview(definition, payload, workflow, now)


def _workflow_preview(
    definition: dict[str, Any],
    payload: dict[str, Any],
    workflow: dict[str, Any],
    now: datetime | None,
) -> WorkflowPreview:
    now = now or datetime.now(UTC)
    nodes = [n for n in definition.get("nodes", []) if isinstance(n, dict) and "id" in n]
    edges = [e for e in definition.get("edges", []) if isinstance(e, dict)]
    by_id = {n["id"]: n for n in nodes}

    def context(vars: dict[str, Any]) -> dict[str, Any]:
        trigger = {"id": "preview", "idempotency_key": "preview", "created_at": now.isoformat()}
        return execution_context(
            payload=payload, vars=vars, trigger=trigger, workflow=workflow, now=now
        )

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
        if outputs_of(node):
            outputs[output_key(node)] = _placeholder_output(node, preview.value("to"), payload, now)

    route, route_error = _route(definition.get("entry_node_id"), by_id, edges, context, outputs)
    return WorkflowPreview([previews[n["id"]] for n in nodes], route, route_error)


def _flow_preview(node: dict[str, Any], context: dict[str, Any], now: datetime) -> NodePreview:
    """A node that sends nothing: what it would do with this payload at `now`, or the error a
    run would fail with."""
    kind = str(node.get("type"))
    try:
        if kind in ("delay", "window"):
            wait = timing_wait(node, context, now)
            if wait.resume_at <= now:
                return NodePreview(node["id"], kind, note="goes on at once")
            # A window's opening in its own zone; a delay's time in UTC.
            opens_at = wait.output.get("opens_at")
            until = datetime.fromisoformat(opens_at) if opens_at else wait.resume_at
            waited = _spelled(node, wait.resume_at - now)
            return NodePreview(node["id"], kind, note=f"waits {waited}, until {_moment(until)}")
        if kind in ("throttle", "digest"):
            key = flow_key(node, context)
            field = [RenderedField("key", key)]
            window = node.get("window")
            if kind == "throttle":
                note = f"lets {node.get('limit')} run(s) with this key through per {window}"
            else:
                note = f"gathers the runs with this key for {window}, then goes on once"
            return NodePreview(node["id"], kind, field, note=note)
    except RenderError as exc:
        return NodePreview(node["id"], kind, error=str(exc))
    except (ValueError, TypeError, KeyError) as exc:  # a definition the validator refuses
        return NodePreview(node["id"], kind, note=f"invalid {kind}: {exc}")
    return NodePreview(node["id"], kind)


def _spelled(node: dict[str, Any], wait: timedelta) -> str:
    """A wait as its author wrote it (a delay's "15m"), else in its two largest units ("2d 12h")."""
    fixed = "" if node.get("until") or node.get("type") != "delay" else delay_spelled(node)
    if fixed:
        return fixed
    total = float(round(max(wait.total_seconds(), 0.0)))
    units = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))
    for (big, big_size), (small, small_size) in itertools.pairwise(units):
        if total >= big_size:  # rounded to the smaller unit: 2d 11h 59m 59s is "2d 12h"
            whole, rest = divmod(round(total / small_size) * small_size, big_size)
            return f"{whole}{big} {rest // small_size}{small}" if rest else f"{whole}{big}"
    return f"{round(total)}s"


def _moment(when: datetime) -> str:
    """A time to the minute (to the second when it has seconds), with its zone: "UTC" or the
    offset of the zone it was computed in ("2026-03-30 09:00 +02:00")."""
    shown = when.strftime("%Y-%m-%d %H:%M:%S" if when.second else "%Y-%m-%d %H:%M")
    offset = when.utcoffset()
    if not offset:
        return f"{shown} UTC"
    sign, minutes = (
        ("+" if offset >= timedelta(0) else "-"),
        abs(round(offset.total_seconds() / 60)),
    )
    return f"{shown} {sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _node_preview(node: dict[str, Any], context: dict[str, Any], now: datetime) -> NodePreview:
    kind = str(node.get("type"))
    if not sends(node):
        return (
            _flow_preview(node, context, now)
            if kind in NODE_TYPES
            else NodePreview(node["id"], kind)
        )
    fields, values, first_error = [], {}, ""
    for name in rendered_fields(node):
        try:
            values[name] = field_render(node, name, context)
            fields.append(RenderedField(name, values[name]))
        except RenderError as exc:
            fields.append(RenderedField(name, None, exc.detail))
            first_error = first_error or str(exc)
    if not first_error:
        try:
            recipient_check(node, values)
        except RenderError as exc:
            first_error = str(exc)
    return NodePreview(node["id"], kind, fields, error=first_error)


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
    digests = {output_key(n) for n in nodes if n.get("type") == "digest" and "id" in n}
    paths: list[VarPath] = []
    lists: set[VarPath] = set()
    for node in nodes:
        node_type = NODE_TYPES.get(str(node.get("type")))
        for name in node_type.templates if node_type else ():
            if isinstance(node.get(name), str):
                paths.extend(template_variable_paths(node[name]))
                looped, iterated = _loop_paths(node[name], digests)
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
