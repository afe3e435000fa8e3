"""What the chat node types (slack, teams) share: a message whose rich part is JSON written as a
Liquid template (Slack's Block Kit `blocks`, a Teams Adaptive Card), checked after rendering, and
an address that comes from the node (a webhook URL, a Slack channel) or, when the node names none,
from the run's recipient (`recipient.channels.<channel>`, read by the channel in workers.channels).

A JSON field without Liquid is parsed when the workflow is saved; one with Liquid when it renders
(a value that breaks the JSON fails the step permanently, naming the field). Insert strings with
the `json` filter (`"text": {{ payload.name | json }}`) so quotes in a value cannot break it.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from workflows.nodes.base import NodePreview, Problem, Rendered, RenderError
from workflows.nodes.sending import SendingType

if TYPE_CHECKING:
    from django import forms

_LIQUID_MARKS = ("{{", "{%")


def has_liquid(source: str) -> bool:
    return any(mark in source for mark in _LIQUID_MARKS)


def webhook_url_problem(url: str) -> str:
    """Why `url` cannot be a chat webhook's URL (before the address rule, checked at each send in
    workers.channels.chat), or ""."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http(s) URL with a host"
    if parts.username is not None or parts.password is not None:
        return "may not carry a user name or password"
    return ""


def url_redacted(url: str) -> str:
    """A webhook URL as logs and outputs show it: its last path segment (the secret of a Slack or
    Teams incoming webhook) and its query (a Workflows URL's signature) left out."""
    parts = urlsplit(url)
    path = parts.path.rsplit("/", 1)[0]
    return f"{parts.scheme}://{parts.netloc}{path}/…"


class ChatType(SendingType):
    """A chat node type: `json_fields` (field -> the JSON type it must render to), and the node
    fields that say where it goes (`address_fields`: at most one; none, the recipient's)."""

    json_fields: ClassVar[dict[str, type]] = {}
    address_fields: ClassVar[tuple[str, ...]] = ("webhook_url",)
    # The fields that carry the message: at least one must render to something.
    message_fields: ClassVar[tuple[str, ...]] = ("text",)

    def problems(self, node: dict[str, Any]) -> list[Problem]:
        found = super().problems(node)
        named = [name for name in self.address_fields if node.get(name) not in (None, "")]
        if len(named) > 1:
            found.append((named[1], f"give one of {', '.join(named)}, not both"))
        url = node.get("webhook_url")
        fixed_url = isinstance(url, str) and url and not has_liquid(url)
        if fixed_url and (problem := webhook_url_problem(str(url))):
            found.append(("webhook_url", problem))
        for name in self.json_fields:
            source = node.get(name)
            if isinstance(source, str) and source and not has_liquid(source):
                try:
                    self.json_check(name, json.loads(source))
                except ValueError as exc:
                    found.append((name, str(exc)))
        return found

    def json_check(self, name: str, value: Any) -> None:
        """ValueError saying what is wrong with a JSON field's parsed value."""
        expected = self.json_fields[name]
        if not isinstance(value, expected):
            raise ValueError(f"must be a JSON {'array' if expected is list else 'object'}")

    def recipient_check(self, node: dict[str, Any], rendered: Rendered) -> Rendered:
        """The rendered fields with every JSON field parsed and checked, and `to`: the node's
        address when it names one (else the channel reads the recipient's)."""
        where = f"node {node['id']!r}"
        if not any(rendered.get(name, "").strip() for name in self.message_fields):
            given = next(name for name in self.message_fields if name in rendered)
            raise RenderError(f"{where}: {given!r} rendered empty", field=given)
        for name in self.json_fields:
            if rendered.get(name, "").strip():
                try:
                    self.json_check(name, json.loads(rendered[name]))
                except ValueError as exc:
                    message = f"{name!r} rendered invalid JSON: {exc}"
                    raise RenderError(f"{where}: {message}", field=name, detail=message) from exc
        address = {name: rendered.get(name, "").strip() for name in self.address_fields}
        for name, value in address.items():
            if name in rendered and not value:
                raise RenderError(f"{where}: {name!r} rendered empty", field=name)
            if name == "webhook_url" and value and (problem := webhook_url_problem(value)):
                raise RenderError(f"{where}: 'webhook_url' {problem}", field=name)
        named = {name: value for name, value in address.items() if name in rendered}
        to = next((value for value in named.values() if value), "")
        return {**rendered, **named, "to": to} if to else rendered

    def recipients(self, node: dict[str, Any], rendered: Rendered) -> list[str]:
        return [rendered["to"]] if rendered.get("to") else []

    def preview(self, node: dict[str, Any], context: dict[str, Any], now: datetime) -> NodePreview:
        shown = super().preview(node, context, now)
        if shown.ok and not any(node.get(name) for name in self.address_fields):
            note = f"sent to the run's recipient (recipient.channels.{self.channel})"
            return NodePreview(shown.node_id, shown.node_type, shown.fields, note=note)
        return shown

    def placeholder(
        self, node: dict[str, Any], *, preview: NodePreview, payload: dict[str, Any], now: datetime
    ) -> dict[str, Any]:
        address = next(
            (preview.value(name) or "" for name in self.address_fields if node.get(name)), ""
        )
        to = url_redacted(address) if address.startswith("http") else address
        return {"message_id": None, "to": to or "recipient", "sent_at": now.isoformat()}

    def summary(self, node: dict[str, Any]) -> str:
        named = next((node[name] for name in self.address_fields if node.get(name)), "")
        return f"{self.name} → {named or 'the recipient'}"

    def form_fields(self) -> dict[str, forms.Field]:
        from django import forms

        def box(label: str, help_text: str) -> forms.CharField:
            return forms.CharField(
                required=False,
                strip=False,
                label=label,
                help_text=help_text,
                widget=forms.Textarea(attrs={"rows": 4}),
            )

        return {
            **super().form_fields(),
            "webhook_url": forms.CharField(
                required=False,
                label="Webhook URL",
                help_text="optional: empty, the run's recipient's (recipient.channels)",
            ),
            "text": box("Text", "Liquid"),
            "blocks": box("Blocks", "optional: a Block Kit JSON array (Liquid)"),
            "card": box("Adaptive Card", "a JSON object (Liquid)"),
            "channel": forms.CharField(
                required=False,
                label="Channel",
                help_text="optional: a Slack channel or user id, sent with the bot token",
            ),
        }
