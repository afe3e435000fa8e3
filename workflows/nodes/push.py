"""The mobile push node type: a notification to every device token of the run's recipient
(`recipient.channels.fcm`), sent on the push channel through FCM HTTP v1 (iOS through FCM's
APNs bridge)."""

from __future__ import annotations

from typing import Any

from workflows.nodes.pushing import PushingType

TOKEN_MAX_LENGTH = 4096


class PushNode(PushingType):
    name = "push"
    channel = "push"
    colours = ("#f3ecfa", "#7a4bb0")

    def address_problem(self, address: Any) -> str:
        if not isinstance(address, str) or not 0 < len(address) <= TOKEN_MAX_LENGTH:
            return f"must be a device token: a string of 1 to {TOKEN_MAX_LENGTH} characters"
        return ""
