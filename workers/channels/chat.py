"""Where a chat message (slack, teams) goes: the node's address, else the run's recipient's
`recipient.channels.<channel>`; and the address rule every webhook URL passes before a send.

A chat webhook URL is a request to a URL a user gave: it must resolve to public addresses only
(events/addresses.py, the rule of the webhooks), unless NOTIFLOW_CHAT_ALLOW_PRIVATE (development
and tests). The name is resolved once, before each send, and checked; the POST then goes to the
very addresses checked (events.services.sender.pinned_post), with the URL's host as Host header
and TLS server name, as the webhook dispatcher's does: a DNS answer that changes in between
(rebinding) cannot send it to a private address.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from events.addresses import AddressRefused, Target, target_resolve
from recipients.selectors import RunRecipient
from workers.channels.base import recipient_channel
from workers.errors import PermanentError


def recipient_chat_address(*, channel: str, recipient: RunRecipient | None) -> dict[str, Any]:
    """The run's recipient's `channels[channel]` object; PermanentError when there is none."""
    address = recipient_channel(recipient, channel)
    if not isinstance(address, dict) or not address:
        raise PermanentError(
            f"recipient {recipient.key if recipient else ''!r} has no channels.{channel} object"
        )
    return address


def webhook_target(url: str, *, channel: str) -> Target:
    """A chat webhook URL resolved and checked (the address rule), to post to: PermanentError
    when it may not be sent to."""
    try:
        return target_resolve(url, allow_private=settings.NOTIFLOW_CHAT_ALLOW_PRIVATE)
    except AddressRefused as exc:
        raise PermanentError(f"{channel} webhook URL refused: {exc}") from exc
