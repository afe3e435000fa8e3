"""The web push node type: a notification to every browser subscription of the run's
recipient (`recipient.channels.webpush`), sent on the webpush channel (RFC 8030, 8291, 8292)."""

from __future__ import annotations

from workflows.nodes.pushing import PushingType


class WebPushNode(PushingType):
    name = "webpush"
    channel = "webpush"
    channel_label = "Browser notifications"
    address_key = "webpush"
    colours = ("#fdf3e6", "#c77c12")
