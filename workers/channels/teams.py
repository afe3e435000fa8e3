"""Microsoft Teams: to the node's webhook URL, else to the run's recipient's
`recipient.channels.teams` ({"webhook_url": ...}); workers/providers/teams.py posts it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from recipients.selectors import RunRecipient
from workers.channels.base import Channel
from workers.channels.chat import recipient_chat_address, webhook_target
from workers.errors import PermanentError
from workers.providers import Provider
from workers.providers.teams import teams_card_of_text, teams_webhook_post
from workflows.nodes.base import Rendered
from workflows.nodes.chat import url_redacted


def teams_address(rendered: Rendered, recipient: RunRecipient | None) -> str:
    if rendered.get("webhook_url"):
        return rendered["webhook_url"]
    url = recipient_chat_address(channel="teams", recipient=recipient).get("webhook_url")
    if not (isinstance(url, str) and url.strip()):
        raise PermanentError(
            f"recipient {recipient.key if recipient else ''!r}: channels.teams needs a webhook_url"
        )
    return url.strip()


class TeamsChannel(Channel):
    def send(
        self,
        rendered: Rendered,
        *,
        idempotency_key: str,
        provider: Provider,
        headers: Mapping[str, str] | None = None,
        recipient: RunRecipient | None = None,
    ) -> dict[str, Any]:
        url = teams_address(rendered, recipient)
        target = webhook_target(url, channel=self.spec.name)
        card = (
            json.loads(rendered["card"])
            if rendered.get("card", "").strip()
            else teams_card_of_text(rendered.get("text", ""))
        )
        teams_webhook_post(target, card=card, idempotency_key=idempotency_key)
        return {
            "message_id": None,
            "to": url_redacted(url),
            "provider": provider.name,
            "provider_message_id": "",
        }
