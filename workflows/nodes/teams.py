"""The Microsoft Teams node type: an Adaptive Card (`card`, a JSON object, Liquid) or plain `text`,
exactly one, sent on the teams channel to an incoming-webhook or Workflows URL (`webhook_url`;
absent: the run's recipient's `recipient.channels.teams`, workers/channels/teams.py)."""

from __future__ import annotations

from typing import Any

from workflows.nodes.base import Problem
from workflows.nodes.chat import ChatType


class TeamsNode(ChatType):
    name = "teams"
    channel = "teams"
    optional = ("text", "card", "webhook_url", "provider", "skip_suppressed")
    templates = ("text", "card", "webhook_url")
    json_fields = {"card": dict}
    message_fields = ("text", "card")
    colours = ("#eef0fa", "#4b53bc")
    form_groups = (("webhook_url",), ("text",), ("card",), ("provider",), ("skip_suppressed",))

    def problems(self, node: dict[str, Any]) -> list[Problem]:
        found = super().problems(node)
        given = [name for name in ("text", "card") if node.get(name) not in (None, "")]
        if len(given) != 1:
            found.append(("text", "give exactly one of text (plain) or card (an Adaptive Card)"))
        return found

    def json_check(self, name: str, value: Any) -> None:
        super().json_check(name, value)
        if value.get("type") != "AdaptiveCard":
            raise ValueError('an Adaptive Card has "type": "AdaptiveCard"')
