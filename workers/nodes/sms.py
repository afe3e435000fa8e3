"""SMS through the backend named by NOTIFLOW_SMS_BACKEND (see workers.providers.sms)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from workers.nodes.base import Rendered, render_fields
from workers.providers.sms import sms_backend


class SmsChannel:
    name = "sms"

    def render(self, node: dict[str, Any], context: dict[str, Any]) -> Rendered:
        return render_fields(node, context, ("to", "body"))

    def send(self, rendered: Rendered, *, idempotency_key: str) -> dict[str, Any]:
        message_id = sms_backend().send(
            to=rendered["to"], body=rendered["body"], idempotency_key=idempotency_key
        )
        return {
            "message_id": message_id,
            "to": rendered["to"],
            "sent_at": timezone.now().isoformat(),
        }
