"""Reads of delivery events (docs/design/deliveries.md, "Deliveries")."""

from __future__ import annotations

from uuid import UUID

from django.db.models import QuerySet

from deliveries.models import DeliveryEvent
from triggers.models import TriggerInstance
from triggers.selectors import TimelineEntry


def delivery_event_list(*, trigger_id: UUID | str) -> QuerySet[DeliveryEvent]:
    """A trigger's delivery events, oldest first (by the provider's time)."""
    return DeliveryEvent.objects.filter(trigger_id=trigger_id).order_by("occurred_at", "id")


def delivery_timeline(trigger: TriggerInstance) -> list[TimelineEntry]:
    """The admin's run timeline gets these (triggers.hooks.TIMELINE_SOURCES)."""
    return [
        TimelineEntry(row.occurred_at, "delivery", row)
        for row in delivery_event_list(trigger_id=trigger.pk)
    ]
