"""The run semantics, pure: what a step sees, what a node renders to, where a run goes next.

The engine (workers.services.engine) and the preview (workflows.preview) both call these, so the
preview says OK only for what a run would do, and a node type is declared once: its fields in
workflows.definition.NODE_TYPES, its render checks here. No database, no provider, no clock but
the `now` passed in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import formataddr, getaddresses
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from workflows.definition import FLOW_KEY_MAX, MAX_DELAY, NODE_TYPES, delay_of, duration_parse
from workflows.templating import (
    TemplateError,
    condition_holds,
    read_paths,
    render_budget,
    template_render,
)
from workflows.timing import WEEKDAYS, clock_parse, until_parse, window_opening, zone_parse

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


def step_input(
    *, node: dict[str, Any], edges: Iterable[dict[str, Any]], context: dict[str, Any]
) -> dict[str, Any]:
    """What a step log keeps of the context its step saw: `trigger`, `workflow` and `now`, and of
    `payload` and `vars` only what the node's templates and its outgoing edges' conditions read
    (a run's payload is on the trigger, its vars too; a digest or a large payload is then not
    copied into every step log). A path read whole (`{{ payload }}`) is kept whole."""
    node_type = NODE_TYPES.get(str(node.get("type")))
    paths = [
        path
        for name in (node_type.templates if node_type else ())
        if isinstance(node.get(name), str)
        for path in read_paths(node[name])
    ]
    for edge in edges:
        if isinstance(edge.get("when"), str) and edge["when"].strip():
            paths.extend(read_paths(edge["when"], condition=True))
    kept: dict[str, Any] = {key: value for key, value in context.items() if key not in _PICKED}
    for root in _PICKED:
        kept[root] = _picked(context.get(root), [p[1:] for p in paths if p and p[0] == root])
    return kept


_PICKED = ("payload", "vars")


def _picked(source: Any, paths: list[tuple[str, ...]]) -> Any:
    """The parts of `source` at `paths`, in fresh objects (`source` itself is never changed):
    each path is walked while it names a key of an object; where it meets a list or a value
    (`items.first.name`), that is kept whole; a key that is not there keeps nothing."""
    if not isinstance(source, dict):
        return source
    kept: dict[str, Any] = {}
    whole: set[tuple[str, ...]] = set()
    for path in sorted(set(paths), key=len):
        value, reached = source, 0
        while reached < len(path) and isinstance(value, dict) and path[reached] in value:
            value, reached = value[path[reached]], reached + 1
        if reached < len(path) and isinstance(value, dict):
            continue  # a key that is not there: nothing was read
        found = path[:reached]
        if any(found[:length] in whole for length in range(len(found) + 1)):
            continue  # inside a part already kept whole
        if not found:
            return source
        whole.add(found)
        target = kept
        for key in found[:-1]:
            target = target.setdefault(key, {})
        target[found[-1]] = value
    return kept


def sends(node: dict[str, Any]) -> bool:
    """Whether running this node calls a provider (and so has a send ledger row)."""
    node_type = NODE_TYPES.get(str(node.get("type")))
    return node_type is not None and node_type.sends


def outputs(node: dict[str, Any]) -> bool:
    """Whether running this node leaves an output in vars (`output_key`): a send, a throttle,
    a digest."""
    node_type = NODE_TYPES.get(str(node.get("type")))
    return node_type is not None and (node_type.sends or node_type.outputs)


def sending_types() -> list[str]:
    return [name for name, node_type in NODE_TYPES.items() if node_type.sends]


def output_key(node: dict[str, Any]) -> str:
    """Where a node's output lands in `vars`: `email_<id>`, `sms_<id>`, `throttle_<id>`,
    `digest_<id>`."""
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
    """One template field of `node`, rendered (HTML fields with autoescape); RenderError naming
    the node and field."""
    node_type = NODE_TYPES[str(node["type"])]
    try:
        return template_render(str(node.get(name, "")), context, html=name in node_type.html)
    except TemplateError as exc:
        message = f"node {node['id']!r} field {name!r}: {exc}"
        raise RenderError(message, field=name, detail=str(exc)) from exc


# E.164: a plus, a country code that does not start with 0, at most 15 digits in all. Spaces,
# dashes, dots and parentheses between the digits are dropped first.
_E164 = re.compile(r"^\+[1-9]\d{1,14}$")
_PHONE_PUNCTUATION = re.compile(r"[\s().-]")


# The rendered fields that become email headers.
HEADER_FIELDS = ("to", "subject")
# What can end a header line between here and the inbox: Python's email package breaks lines on
# \v \f \x1c-\x1e \x85 \u2028 \u2029 as well as \r \n (str.splitlines), and no other control
# character but tab belongs in a header either (C0, DEL, C1).
_HEADER_BREAKING = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def header_value_problem(value: str) -> str:
    """Why `value` cannot be an email header's value (header injection), or "" when it can."""
    found = _HEADER_BREAKING.search(value)
    if found is None:
        return ""
    return f"a line break or control character ({found.group()!r}); a header is one line"


def recipient_check(node: dict[str, Any], rendered: Rendered) -> Rendered:
    """The rendered fields as they will be sent (`to` normalised), or RenderError when they
    cannot be: an empty or malformed recipient, more email recipients than the node allows
    (`max_recipients`, 1 unless set), a header field with a character that can end a header
    line (header injection: header_value_problem)."""
    where = f"node {node['id']!r}"
    for name in HEADER_FIELDS:
        if problem := header_value_problem(rendered.get(name, "")):
            raise RenderError(f"{where}: {name!r} rendered {problem}", field=name)
    recipient = rendered.get("to", "").strip()
    if not recipient:
        raise RenderError(f"{where}: recipient 'to' rendered empty", field="to")
    if node["type"] == "sms":
        number = _PHONE_PUNCTUATION.sub("", recipient)
        if not _E164.match(number):
            raise RenderError(
                f"{where}: {recipient!r} is not a phone number in E.164 form (+15550100)",
                field="to",
            )
        return {**rendered, "to": number}
    return {**rendered, "to": _email_recipients(node, recipient, where)}


def _email_recipients(node: dict[str, Any], recipient: str, where: str) -> str:
    allowed = int(node.get("max_recipients") or 1)
    addresses = [(name, address) for name, address in getaddresses([recipient]) if address]
    if not addresses:
        raise RenderError(f"{where}: {recipient!r} is not an email address", field="to")
    if len(addresses) > allowed:
        raise RenderError(
            f"{where}: 'to' rendered {len(addresses)} recipients, more than max_recipients "
            f"({allowed})",
            field="to",
        )
    for _, address in addresses:
        # The parser keeps a word of `not an email`, and glues `a@example.com junk` into one
        # address: what it found must be an address, and be written so in the value.
        if _is_email(address) and address in recipient:
            continue
        named = repr(recipient) if len(addresses) == 1 else f"{address!r} (in {recipient!r})"
        raise RenderError(f"{where}: {named} is not an email address", field="to")
    return ", ".join(formataddr(pair) for pair in addresses)


def _is_email(address: str) -> bool:
    try:
        validate_email(address)
    except ValidationError:
        return False
    return True


def recipients_of(node: dict[str, Any], rendered: Rendered) -> list[str]:
    """The addresses or numbers a checked render (node_render) sends to."""
    if node["type"] == "email":
        return [address for _, address in getaddresses([rendered["to"]])]
    return [rendered["to"]]


def node_render(node: dict[str, Any], context: dict[str, Any]) -> Rendered:
    """Every field a sending node sends, rendered within one render budget and checked;
    RenderError at the first problem."""
    with render_budget():
        rendered = {name: field_render(node, name, context) for name in rendered_fields(node)}
    return recipient_check(node, rendered)


@dataclass(frozen=True)
class Wait:
    """When a run goes on after a delay or window node (`resume_at`, `now` for at once), and
    what its step log says."""

    resume_at: datetime
    output: dict[str, Any]


def timing_wait(node: dict[str, Any], context: dict[str, Any], now: datetime) -> Wait:
    """A delay's or a send window's wait from `now`; RenderError (permanent) naming the node,
    the field and the value when `until` or `timezone` renders to something unusable."""
    if node["type"] == "window":
        return _window_wait(node, context, now)
    if not node.get("until"):
        wait = delay_of(node)
        return Wait(now + wait, {"delay_ms": _milliseconds(wait)})
    with render_budget():
        spelled = field_render(node, "until", context).strip()
    try:
        until = until_parse(spelled)
    except ValueError as exc:
        raise _value_error(node, "until", exc) from exc
    if until - now > MAX_DELAY:
        raise _value_error(node, "until", ValueError(f"{spelled!r} is more than 365 days away"))
    resume_at = max(now, until)
    return Wait(resume_at, {"until": until.isoformat(), "delay_ms": _milliseconds(resume_at - now)})


def _window_wait(node: dict[str, Any], context: dict[str, Any], now: datetime) -> Wait:
    with render_budget():
        name = field_render(node, "timezone", context).strip() if node.get("timezone") else ""
    name = name or settings.NOTIFLOW_DEFAULT_TIMEZONE
    try:
        zone = zone_parse(name)
    except ValueError as exc:
        raise _value_error(node, "timezone", exc) from exc
    opens = window_opening(
        now,
        zone=zone,
        days=window_days(node),
        start=clock_parse(node["start"]),
        end=clock_parse(node["end"]),
    )
    if opens is None:
        return Wait(now, {"timezone": name, "open": True, "delay_ms": 0})
    local = opens.astimezone(zone).isoformat()
    return Wait(
        opens,
        {
            "timezone": name,
            "open": False,
            "opens_at": local,
            "delay_ms": _milliseconds(opens - now),
        },
    )


def window_days(node: dict[str, Any]) -> list[str]:
    """The days a (validated) window node is open on: every day unless it says."""
    return list(node.get("days") or WEEKDAYS)


def flow_key(node: dict[str, Any], context: dict[str, Any]) -> str:
    """A throttle's or digest's rendered `key`; RenderError when it renders empty or too long."""
    with render_budget():
        key = field_render(node, "key", context).strip()
    if not key:
        raise RenderError(f"node {node['id']!r}: 'key' rendered empty", field="key")
    if len(key) > FLOW_KEY_MAX:
        raise RenderError(
            f"node {node['id']!r}: 'key' rendered {len(key)} characters, more than {FLOW_KEY_MAX}",
            field="key",
        )
    return key


def flow_window(node: dict[str, Any]) -> timedelta:
    """A (validated) throttle's or digest's window."""
    return duration_parse(str(node["window"]))


def _value_error(node: dict[str, Any], name: str, exc: ValueError) -> RenderError:
    return RenderError(f"node {node['id']!r} field {name!r}: {exc}", field=name, detail=str(exc))


def _milliseconds(wait: timedelta) -> int:
    return int(wait.total_seconds() * 1000)


def next_node_id(
    edges: Iterable[dict[str, Any]], context: dict[str, Any], *, conditional_only: bool = False
) -> str | None:
    """The target of the first of a node's outgoing `edges` whose `when` holds in `context` (an
    edge without `when` always holds), or None: the run ends. TemplateError when a condition
    cannot be evaluated. `conditional_only` (a throttled run) follows only an edge with a
    `when`: the edges without one are the way on for the runs that passed."""
    for edge in edges:
        if conditional_only and not edge.get("when"):
            continue
        if condition_holds(edge.get("when"), context):
            return str(edge["to"])
    return None
