"""The Slack node type: `text` and optional Block Kit `blocks` (a JSON array, Liquid), sent on the
slack channel to an incoming webhook (`webhook_url`) or, with the bot token, to a channel or user
id (`channel`); neither: to the run's recipient's `recipient.channels.slack`
(workers/channels/slack.py)."""

from __future__ import annotations

from typing import Any

from workflows.nodes.chat import ChatType

# Block Kit's limit on one message's blocks (chat.postMessage refuses more: invalid_blocks).
MAX_BLOCKS = 50


class SlackNode(ChatType):
    name = "slack"
    channel = "slack"
    required = ("text",)
    optional = ("blocks", "webhook_url", "channel", "provider", "skip_suppressed")
    templates = ("text", "blocks", "webhook_url", "channel")
    json_fields = {"blocks": list}
    address_fields = ("webhook_url", "channel")
    message_fields = ("text", "blocks")
    colours = ("#f4ecf7", "#611f69")
    # One field a group: a group the teams row shares (webhook_url, text) is one set of inputs.
    form_groups = (
        ("webhook_url",),
        ("channel",),
        ("text",),
        ("blocks",),
        ("provider",),
        ("skip_suppressed",),
    )

    def json_check(self, name: str, value: Any) -> None:
        super().json_check(name, value)
        if len(value) > MAX_BLOCKS:
            raise ValueError(f"has {len(value)} blocks; Slack takes at most {MAX_BLOCKS}")
        for index, block in enumerate(value):
            if not (isinstance(block, dict) and isinstance(block.get("type"), str)):
                raise ValueError(f"block {index} is not an object with a 'type'")
