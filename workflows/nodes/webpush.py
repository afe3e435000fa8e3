"""The web push node type: a notification to every browser subscription of the run's
recipient (`recipient.channels.webpush`), sent on the webpush channel (RFC 8030, 8291, 8292)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from workflows.nodes.pushing import PushingType


class WebPushNode(PushingType):
    name = "webpush"
    channel = "webpush"
    colours = ("#fdf3e6", "#c77c12")

    def address_problem(self, address: Any) -> str:
        """A browser's PushSubscription JSON: an https endpoint (http only where
        NOTIFLOW_WEBPUSH_ALLOW_HTTP says so: the tests' push service) and its p256dh and auth
        keys."""
        schemes = ("https://", "http://") if settings.NOTIFLOW_WEBPUSH_ALLOW_HTTP else ("https://",)
        keys = address.get("keys") if isinstance(address, dict) else None
        if not (
            isinstance(keys, dict)
            and str(address.get("endpoint", "")).startswith(schemes)
            and all(isinstance(keys.get(name), str) and keys[name] for name in ("p256dh", "auth"))
        ):
            return (
                'must be a browser\'s PushSubscription: {"endpoint": an https URL, "keys": '
                '{"p256dh": ..., "auth": ...}}'
            )
        return ""
