"""Slack: to the node's incoming webhook or channel, else to the run's recipient's
`recipient.channels.slack`: {"webhook_url": ...}, {"channel": "C…"} or {"user_id": "U…"} (a
direct message from the app), the last two with the bot token (workers/providers/slack.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from recipients.selectors import RunRecipient
from workers.channels.base import Channel
from workers.channels.chat import recipient_chat_address, webhook_target
from workers.errors import PermanentError
from workers.providers import Provider
from workers.providers.slack import slack_message_post, slack_webhook_post
from workflows.nodes.base import Rendered
from workflows.nodes.chat import url_redacted


def slack_address(rendered: Rendered, recipient: RunRecipient | None) -> tuple[str, str]:
    """("webhook_url", url) or ("channel", id): the node's, else the recipient's."""
    for kind in ("webhook_url", "channel"):
        if rendered.get(kind):
            return kind, rendered[kind]
    address = recipient_chat_address(channel="slack", recipient=recipient)
    for kind, key in (
        ("webhook_url", "webhook_url"),
        ("channel", "channel"),
        ("channel", "user_id"),
    ):
        if isinstance(address.get(key), str) and address[key].strip():
            return kind, address[key].strip()
    raise PermanentError(
        f"recipient {recipient.key if recipient else ''!r}: channels.slack needs webhook_url, channel or user_id"
    )


class SlackChannel(Channel):
    def send(
        self,
        rendered: Rendered,
        *,
        idempotency_key: str,
        provider: Provider,
        headers: Mapping[str, str] | None = None,
        recipient: RunRecipient | None = None,
    ) -> dict[str, Any]:
        kind, address = slack_address(rendered, recipient)
        blocks = json.loads(rendered["blocks"]) if rendered.get("blocks", "").strip() else None
        message_id: str | None = None
        if kind == "webhook_url":
            target = webhook_target(address, channel=self.spec.name)
            slack_webhook_post(target, url=address, text=rendered["text"], blocks=blocks)
            to = url_redacted(address)
        else:
            message_id = slack_message_post(
                channel=address,
                text=rendered["text"],
                blocks=blocks,
                idempotency_key=idempotency_key,
            )
            to = address
        return {
            "message_id": message_id,
            "to": to,
            "provider": provider.name,
            "provider_message_id": message_id or "",
        }
