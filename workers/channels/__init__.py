"""Channels' senders: one module per channel (`workers/channels/<name>.py`), named by the
channel's spec (workflows.channels: `sender`), behind the small `Channel` base; and what this
worker can run (worker_capabilities), the one answer both the registry and the engine use."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

from django.utils.module_loading import import_string

from workers.channels.base import Channel
from workers.providers import channel_providers
from workflows.channels import CHANNEL_SPECS, ChannelSpec, sending_channels
from workflows.nodes import NODE_TYPES


@lru_cache(maxsize=64)
def _sender(spec: ChannelSpec) -> Channel:
    return import_string(spec.sender)(spec)  # type: ignore[no-any-return]


class _Senders(Mapping[str, Channel]):
    """The sender of every registered channel that sends through a provider, by name, asked of
    the registry on each read (a test may register a channel); one instance per spec."""

    def __getitem__(self, name: str) -> Channel:
        spec = CHANNEL_SPECS[name]
        if spec.providers is None:
            raise KeyError(name)
        return _sender(spec)

    def __iter__(self) -> Iterator[str]:
        return iter([spec.name for spec in sending_channels()])

    def __len__(self) -> int:
        return len(sending_channels())


CHANNELS: Mapping[str, Channel] = _Senders()


@dataclass(frozen=True)
class Capabilities:
    """What this worker's code and configuration can run: node types, and the providers serving
    each sending channel in failover order ({"email": "ses,smtp", "sms": "twilio"})."""

    node_types: list[str]
    providers: dict[str, str]


def worker_capabilities() -> Capabilities:
    """Read from the settings on each call (cheap; tests change them): a sending node type is
    runnable when its channel has a provider, any other registered type always."""
    configured = {
        channel: ",".join(provider.name for provider in channel_providers(channel))
        for channel in CHANNELS
    }
    providers = {channel: name for channel, name in configured.items() if name}
    node_types = [
        name
        for name, kind in NODE_TYPES.items()
        if kind.channel is None or kind.channel in providers
    ]
    return Capabilities(node_types=node_types, providers=providers)


def node_unrunnable(node: dict[str, object]) -> str | None:
    """Why this worker cannot run `node`, as a trigger's `last_error` (starting
    `no_handler_registered:`), or None when it can. A step that meets this fails at once: a
    retry on the same worker would meet it again."""
    node_type = str(node.get("type"))
    prefix = f"no_handler_registered: node {node.get('id')!r}"
    kind = NODE_TYPES.get(node_type)
    if kind is None:
        return f"{prefix} has type {node_type!r}, which this worker's code does not know"
    if kind.channel is None:
        return None  # runs in-process, whatever the worker's providers
    channel = CHANNELS.get(kind.channel)
    if channel is None:
        return f"{prefix} sends on channel {kind.channel!r}, which this worker's code does not have"
    # What worker_capabilities says of this node's type, asked of its one channel (on every step:
    # the capabilities of every channel are the registry's, not a step's).
    names = [provider.name for provider in channel_providers(channel.spec.name)]
    if not names:
        return (
            f"{prefix} is an {node_type} node and this worker has no {channel.spec.noun} provider"
        )
    named = str(node.get("provider") or "")
    if named and named not in names:
        return (
            f"{prefix} names provider {named!r}, which this worker does not have "
            f"({channel.spec.noun} providers: {', '.join(names)})"
        )
    return None


__all__ = ["CHANNELS", "Capabilities", "Channel", "node_unrunnable", "worker_capabilities"]
