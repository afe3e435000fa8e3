"""The mobile push node type: a notification to every device token of the run's recipient
(`recipient.channels.fcm`), sent on the push channel through FCM HTTP v1 (iOS through FCM's
APNs bridge)."""

from __future__ import annotations

from workflows.nodes.pushing import PushingType


class PushNode(PushingType):
    name = "push"
    channel = "push"
    channel_label = "Mobile push"
    address_key = "fcm"
    colours = ("#f3ecfa", "#7a4bb0")
