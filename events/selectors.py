"""Reads of the webhook tables, for the API and the admin alike."""

from __future__ import annotations

import uuid

from django.db.models import QuerySet

from events.models import OutboxEvent, WebhookAttempt, WebhookDelivery, WebhookEndpoint


def endpoint_list() -> QuerySet[WebhookEndpoint]:
    """Every endpoint, oldest first (a stable order for pages)."""
    return WebhookEndpoint.objects.order_by("created_at", "id")


def endpoint_attempt_list(*, endpoint_id: uuid.UUID) -> QuerySet[WebhookAttempt]:
    """The attempts to send to an endpoint, newest first (webhook_attempt_endpoint_idx). They
    stay after the endpoint is deleted, until retention removes them with their events."""
    return WebhookAttempt.objects.filter(endpoint_id=endpoint_id).order_by("-id")


def event_delivery_list(*, event: OutboxEvent) -> QuerySet[WebhookDelivery]:
    """An event's deliveries, one per endpoint it went to, with the endpoint."""
    return WebhookDelivery.objects.filter(event=event).select_related("endpoint").order_by("id")
