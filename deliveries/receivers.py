"""anymail's tracking signal (docs/design/deliveries.md, "Deliveries"): every ESP's webhook view, once it has
checked its caller, sends a normalised AnymailTrackingEvent; this turns it into a Report, which
the configured providers that send through that ESP may have made (deliveries/tracking.py)."""

from __future__ import annotations

from typing import Any

from anymail.signals import AnymailTrackingEvent

from deliveries.services import Report, delivery_record
from deliveries.tracking import esp_providers
from workers.channels.email import METADATA_KEY


def anymail_tracking(
    sender: Any, event: AnymailTrackingEvent, esp_name: str, **kwargs: Any
) -> None:
    metadata = event.metadata or {}
    delivery_record(
        Report(
            provider=esp_name,
            channel="email",
            event=str(event.event_type),
            recipient=str(event.recipient or ""),
            provider_message_id=str(event.message_id or ""),
            event_id=str(event.event_id or ""),
            occurred_at=event.timestamp,
            description=" ".join(filter(None, [event.description, event.mta_response])),
            raw=event.esp_event if isinstance(event.esp_event, dict | list) else {},
            idempotency_key=str(metadata.get(METADATA_KEY) or ""),
            message_id=_message_id_header(event.esp_event),
            reporters=esp_providers(esp_name),
        )
    )


def _message_id_header(raw: Any) -> str:
    """The Message-ID of the message, where the ESP's report carries its headers (SES does)."""
    if not isinstance(raw, dict):
        return ""
    headers = (raw.get("mail") or {}).get("commonHeaders") or {}
    return str(headers.get("messageId") or raw.get("smtp-id") or "")
