"""The node type registry (docs/design/workflows.md, "Node types"): every node type a definition may use,
one class per module in this package, listed once below. The validator, the engine, the
preview, the diagram, the admin form and the API schema ask it; adding a node type is a new
module and one line in REGISTERED."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from workflows.nodes.base import NodeType
from workflows.nodes.delay import DelayNode
from workflows.nodes.digest import DigestNode
from workflows.nodes.email import EmailNode
from workflows.nodes.fetch import FetchNode
from workflows.nodes.inapp import InappNode
from workflows.nodes.push import PushNode
from workflows.nodes.slack import SlackNode
from workflows.nodes.sms import SmsNode
from workflows.nodes.teams import TeamsNode
from workflows.nodes.throttle import ThrottleNode
from workflows.nodes.wait_event import WaitEventNode
from workflows.nodes.webpush import WebPushNode
from workflows.nodes.window import WindowNode

REGISTERED: tuple[type[NodeType], ...] = (
    EmailNode,
    SmsNode,
    WebPushNode,
    PushNode,
    SlackNode,
    TeamsNode,
    InappNode,
    DelayNode,
    WindowNode,
    ThrottleNode,
    DigestNode,
    WaitEventNode,
    FetchNode,
)

# name -> the node type; read on every call (a test may register one for its duration).
NODE_TYPES: dict[str, NodeType] = {kind.name: kind() for kind in REGISTERED}


def node_type_of(node: dict[str, Any]) -> NodeType | None:
    """The registered type of `node` (by its `type`), or None for a type nobody registered."""
    return NODE_TYPES.get(str(node.get("type")))


def channel_node_type(channel: str) -> NodeType | None:
    """The first registered type that sends on `channel` (workflows.channels), whose rules say
    what an address of it is (`recipient_check`, `recipients`); None when no type sends on it."""
    return next((kind for kind in NODE_TYPES.values() if kind.channel == channel), None)


@contextmanager
def node_type_registered(kind: type[NodeType]) -> Iterator[NodeType]:
    """`kind` registered for the block's duration (tests: a toy type shows every consumer asks
    the registry)."""
    if kind.name in NODE_TYPES:
        raise ValueError(f"node type {kind.name!r} is already registered")
    NODE_TYPES[kind.name] = kind()
    try:
        yield NODE_TYPES[kind.name]
    finally:
        del NODE_TYPES[kind.name]


__all__ = [
    "NODE_TYPES",
    "REGISTERED",
    "NodeType",
    "channel_node_type",
    "node_type_of",
    "node_type_registered",
]
