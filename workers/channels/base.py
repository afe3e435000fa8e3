"""What a channel's sender provides: a send through one named provider. What the channel is (its
name, providers, address, suppression, output) is its spec's (workflows.channels); what running
a node produces (NodeRun) and where a run goes after it are the node types' (workflows.nodes.base)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from recipients.selectors import RecipientMissing, RunRecipient
from workers.errors import PermanentError
from workers.providers import Provider
from workflows.channels import ChannelSpec
from workflows.nodes.base import (
    FOLLOW_AGAIN,
    FOLLOW_CONDITIONAL,
    FOLLOW_EDGES,
    FOLLOW_END,
    NodeRun,
    Rendered,
)

__all__ = [
    "FOLLOW_AGAIN",
    "FOLLOW_CONDITIONAL",
    "FOLLOW_EDGES",
    "FOLLOW_END",
    "Channel",
    "NodeRun",
    "recipient_channel",
]


class Channel:
    """A channel's sender, one per registered channel (workflows.channels: its spec's `sender`,
    made with the spec); its providers are in workers.providers."""

    def __init__(self, spec: ChannelSpec) -> None:
        self.spec = spec

    def send(
        self,
        rendered: Rendered,
        *,
        idempotency_key: str,
        provider: Provider,
        headers: Mapping[str, str] | None = None,
        recipient: RunRecipient | None = None,
    ) -> dict[str, Any]:
        """Deliver once through `provider`; returns {"message_id", "to", "provider",
        "provider_message_id"} (the send path adds `sent_at`, on the step's clock: a channel
        reads no clock). Raises TransientError or PermanentError.

        `rendered` is workflows.semantics.node_render's result. `idempotency_key` is
        `<trigger_id>:<node_id>` and must travel to the provider, whichever it is. `headers` are
        extra email headers (SMS has none). `recipient` is the run's recipient as the step read it (None
        for none): the push channels send to the addresses it holds, and a chat channel whose
        node names no address finds one there (slack, teams).
        """
        raise NotImplementedError


def recipient_channel(recipient: RunRecipient | None, name: str) -> Any:
    """The run's recipient's `recipient.channels[name]` (RunRecipient.channel: None when they
    have none), for a channel that takes its address there (chat, push); PermanentError when the
    run has no recipient or the recipient does not exist (a retry would find the same)."""
    if recipient is None:
        raise PermanentError(f"the run has no recipient to take recipient.channels.{name} from")
    try:
        return recipient.channel(name)
    except RecipientMissing as exc:
        raise PermanentError(str(exc)) from exc
