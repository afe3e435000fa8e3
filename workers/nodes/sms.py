"""SMS through the backend named by NOTIFLOW_SMS_BACKEND (see workers.providers.sms)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from workers.providers.sms import sms_backend
from workflows.semantics import Rendered


class SmsChannel:
    name = "sms"

    def send(self, rendered: Rendered, *, idempotency_key: str) -> dict[str, Any]:
        message_id = sms_backend().send(
            to=rendered["to"], body=rendered["body"], idempotency_key=idempotency_key
        )
        return {
            "message_id": message_id,
            "to": rendered["to"],
            "sent_at": timezone.now().isoformat(),
        }
