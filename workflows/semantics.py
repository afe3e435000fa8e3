"""The run semantics, pure: what a step sees, what a node renders to, where a run goes next.

The engine (workers.services.engine) and the preview (workflows.preview) both call these, so the
preview says OK only for what a run would do, and a node type is declared once: its fields in
workflows.definition.NODE_TYPES, its render checks here. No database, no provider, no clock but
the `now` passed in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta
from email.utils import formataddr, getaddresses
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from workflows.definition import NODE_TYPES, delay_of
from workflows.templating import TemplateError, condition_holds, render_budget, template_render

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


def recipient_check(node: dict[str, Any], rendered: Rendered) -> Rendered:
    """The rendered fields as they will be sent (`to` normalised), or RenderError when they
    cannot be: an empty or malformed recipient, more email recipients than the node allows
    (`max_recipients`, 1 unless set), a header field with a line break (header injection)."""
    where = f"node {node['id']!r}"
    for name in ("to", "subject"):
        if "\r" in rendered.get(name, "") or "\n" in rendered.get(name, ""):
            raise RenderError(
                f"{where}: {name!r} rendered a line break (one line only)", field=name
            )
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
        try:
            validate_email(address)
        except ValidationError as exc:
            raise RenderError(f"{where}: {address!r} is not an email address", field="to") from exc
    return ", ".join(formataddr(pair) for pair in addresses)


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
