"""Node executors: one module per node type behind the small `Channel` interface in base."""

from workers.nodes.base import Channel, Rendered
from workers.nodes.email import EmailChannel
from workers.nodes.sms import SmsChannel

CHANNELS: dict[str, Channel] = {"email": EmailChannel(), "sms": SmsChannel()}

__all__ = ["CHANNELS", "Channel", "Rendered"]
