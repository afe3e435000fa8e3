"""An outbox event as it goes on the wire: a CloudEvents 1.0 JSON object (docs/design/events.md,
"Events and webhooks"). Built from the immutable row alone, so every redelivery carries the same
body; `data.sequence` is the row's id (for one trigger, a larger one is a later change)."""

from __future__ import annotations

import json
from datetime import UTC
from typing import Any

from django.conf import settings

from events.catalog import cloud_type
from events.models import OutboxEvent


def cloud_event(event: OutboxEvent) -> dict[str, Any]:
    """The CloudEvents envelope of `event`."""
    envelope: dict[str, Any] = {
        "specversion": "1.0",
        "id": str(event.event_id),
        "source": settings.NOTIFLOW_EVENT_SOURCE,
        "type": cloud_type(event.type),
    }
    if event.trigger_id:
        envelope["subject"] = str(event.trigger_id)
    envelope["time"] = event.time.astimezone(UTC).isoformat().replace("+00:00", "Z")
    envelope["datacontenttype"] = "application/json"
    envelope["data"] = {**event.data, "sequence": event.id}
    return envelope


def event_body(event: OutboxEvent) -> bytes:
    """The exact bytes POSTed (and signed) for `event`."""
    return json.dumps(cloud_event(event), separators=(",", ":"), ensure_ascii=False).encode()
