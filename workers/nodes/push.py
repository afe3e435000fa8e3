"""The push channels: web push (`webpush`) to a recipient's browser subscriptions and mobile
push (`push`, FCM HTTP v1) to their device tokens; one message per address, exactly once each
(workers/services/push.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings

from recipients.selectors import RunRecipient
from workers.providers import Provider
from workers.providers.push import PushAnswer, fcm_backend, webpush_backend
from workers.services.push import push_fan_out, push_message_id, push_topic, recipient_addresses
from workflows.nodes.base import Rendered


def _notification(rendered: Rendered, idempotency_key: str) -> dict[str, Any]:
    """What the device shows: title, body, url, icon, and `tag` (the message's id), by which a
    second copy replaces the first (the service worker passes it to showNotification)."""
    fields = {
        name: rendered[name] for name in ("title", "body", "url", "icon") if rendered.get(name)
    }
    return {**fields, "tag": push_message_id(idempotency_key)}


def _is_subscription(address: Any) -> bool:
    """A browser's PushSubscription JSON: an https endpoint (http only where
    NOTIFLOW_WEBPUSH_ALLOW_HTTP says so: the tests' push service) and its p256dh and auth keys."""
    schemes = ("https://", "http://") if settings.NOTIFLOW_WEBPUSH_ALLOW_HTTP else ("https://",)
    keys = address.get("keys") if isinstance(address, dict) else None
    return (
        isinstance(keys, dict)
        and str(address.get("endpoint", "")).startswith(schemes)
        and all(isinstance(keys.get(name), str) and keys[name] for name in ("p256dh", "auth"))
    )


def _is_token(address: Any) -> bool:
    return isinstance(address, str) and 0 < len(address) <= 4096


class WebPushChannel:
    name = "webpush"
    label = "web push"
    unsubscribe_headers = False
    address_key = "webpush"

    def send(
        self,
        rendered: Rendered,
        *,
        idempotency_key: str,
        provider: Provider,
        headers: Mapping[str, str] | None = None,
        recipient: RunRecipient | None = None,
    ) -> dict[str, Any]:
        backend, topic = webpush_backend(), push_topic(idempotency_key)
        payload = _notification(rendered, idempotency_key)

        def send_one(subscription: Any) -> PushAnswer:
            return backend.send(subscription, payload, topic=topic)

        addresses = recipient_addresses(
            recipient=recipient, address_key=self.address_key, usable=_is_subscription
        )
        return push_fan_out(
            idempotency_key=idempotency_key,
            recipient=recipient.key if recipient else "",
            address_key=self.address_key,
            addresses=addresses,
            send=send_one,
            provider=provider.name,
        )


class PushChannel:
    name = "push"
    label = "push (FCM)"
    unsubscribe_headers = False
    address_key = "fcm"

    def send(
        self,
        rendered: Rendered,
        *,
        idempotency_key: str,
        provider: Provider,
        headers: Mapping[str, str] | None = None,
        recipient: RunRecipient | None = None,
    ) -> dict[str, Any]:
        backend, topic = fcm_backend(), push_topic(idempotency_key)
        payload = _notification(rendered, idempotency_key)

        def send_one(token: Any) -> PushAnswer:
            return backend.send(token, payload, topic=topic)

        addresses = recipient_addresses(
            recipient=recipient, address_key=self.address_key, usable=_is_token
        )
        return push_fan_out(
            idempotency_key=idempotency_key,
            recipient=recipient.key if recipient else "",
            address_key=self.address_key,
            addresses=addresses,
            send=send_one,
            provider=provider.name,
        )
