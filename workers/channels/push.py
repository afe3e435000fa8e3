"""The push channels: web push (`webpush`) to a recipient's browser subscriptions and mobile
push (`push`, FCM HTTP v1) to their device tokens; one message per address, exactly once each
(workers/services/push.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from recipients.selectors import RunRecipient
from workers.channels.base import Channel, recipient_channel
from workers.providers import Provider
from workers.providers.push import PushAnswer, fcm_backend, webpush_backend
from workers.services.push import push_fan_out, push_message_id, push_topic
from workflows.nodes.base import Rendered
from workflows.nodes.push import PushNode
from workflows.nodes.webpush import WebPushNode


class PushBackend(Protocol):
    """workers/providers/push.py's WebPushBackend and FcmBackend: one message to one address."""

    def send(self, address: Any, payload: dict[str, Any], *, topic: str) -> PushAnswer: ...


def _notification(rendered: Rendered, idempotency_key: str) -> dict[str, Any]:
    """What the device shows: title, body, url, icon, and `tag` (the message's id), by which a
    second copy replaces the first (the service worker passes it to showNotification)."""
    fields = {
        name: rendered[name] for name in ("title", "body", "url", "icon") if rendered.get(name)
    }
    return {**fields, "tag": push_message_id(idempotency_key)}


class _PushChannelBase(Channel):
    """A push channel: one message to each usable address in the recipient's
    `channels[<its spec's channels_key>]` (push_fan_out). A channel says which addresses it can
    use (`usable`) and which backend sends to one of them (`backend`)."""

    def usable(self, address: Any) -> bool:
        raise NotImplementedError

    def backend(self) -> PushBackend:
        raise NotImplementedError

    def send(
        self,
        rendered: Rendered,
        *,
        idempotency_key: str,
        provider: Provider,
        headers: Mapping[str, str] | None = None,
        recipient: RunRecipient | None = None,
    ) -> dict[str, Any]:
        backend, topic = self.backend(), push_topic(idempotency_key)
        payload = _notification(rendered, idempotency_key)
        address_key = self.spec.channels_key
        listed = recipient_channel(recipient, address_key)
        addresses = [a for a in listed if self.usable(a)] if isinstance(listed, list) else []
        return push_fan_out(
            idempotency_key=idempotency_key,
            recipient=recipient.key if recipient else "",
            address_key=address_key,
            addresses=addresses,
            send=lambda address: backend.send(address, payload, topic=topic),
            provider=provider.name,
        )


class WebPushChannel(_PushChannelBase):
    def usable(self, address: Any) -> bool:
        return not WebPushNode().address_problem(address)

    def backend(self) -> PushBackend:
        return webpush_backend()


class PushChannel(_PushChannelBase):
    def usable(self, address: Any) -> bool:
        return not PushNode().address_problem(address)

    def backend(self) -> PushBackend:
        return fcm_backend()
