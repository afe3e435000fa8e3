"""SMS through the named provider's backend (workers/providers/sms.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils import timezone

from recipients.selectors import RunRecipient
from workers.providers import Provider
from workers.providers.sms import sms_backend
from workflows.nodes.base import Rendered


class SmsChannel:
    name = "sms"
    label = "SMS"
    unsubscribe_headers = False

    def send(
        self,
        rendered: Rendered,
        *,
        idempotency_key: str,
        provider: Provider,
        headers: Mapping[str, str] | None = None,
        recipient: RunRecipient | None = None,
    ) -> dict[str, Any]:
        message_id = sms_backend(provider).send(
            to=rendered["to"], body=rendered["body"], idempotency_key=idempotency_key
        )
        return {
            "message_id": message_id,
            "to": rendered["to"],
            "sent_at": timezone.now().isoformat(),
            "provider": provider.name,
            "provider_message_id": message_id or "",
        }
