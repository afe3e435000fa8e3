"""Node executors: one module per sending node type behind the small `Channel` interface in base."""

from workers.nodes.base import Channel
from workers.nodes.email import EmailChannel
from workers.nodes.sms import SmsChannel

# One channel for every node type that sends (workflows.definition.NODE_TYPES, `sends`).
CHANNELS: dict[str, Channel] = {"email": EmailChannel(), "sms": SmsChannel()}

__all__ = ["CHANNELS", "Channel"]
