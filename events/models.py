"""The transactional outbox and the webhook endpoints it is delivered to (docs/design/rules.md, rule 10).

An OutboxEvent is written in the transaction of the change it announces, with one
WebhookDelivery per endpoint that subscribes to it (events/sql.py); the dispatcher
(events/services/dispatcher.py) delivers them, recording every WebhookAttempt.
"""

from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.db.models.functions import Now


class OutboxEvent(models.Model):
    """One announcement, immutable (PostgreSQL refuses UPDATE and DELETE but by retention).

    `id` orders events: for one trigger, a larger id is a later change (each is written under
    the trigger's row lock). `event_id` is the CloudEvents `id` and the `webhook-id` header,
    the same on every redelivery.
    """

    event_id = models.UUIDField(default=uuid.uuid4, editable=False)
    type = models.CharField(max_length=64)
    # The CloudEvents `subject`: no foreign key, the event outlives the trigger's retention.
    trigger_id = models.UUIDField(null=True, blank=True)
    workflow_key = models.CharField(max_length=100, blank=True)
    data = models.JSONField()
    time = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "outbox_event"
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["event_id"], name="outbox_event_id_unique")]
        indexes = [
            models.Index(fields=["trigger_id", "id"], name="outbox_event_trigger_idx"),
            models.Index(fields=["time"], name="outbox_event_time_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.event_id}"


class WebhookEndpoint(models.Model):
    """Where events go: a URL, the event types and workflows it wants, and its signing secret
    (Standard Webhooks `whsec_...`; kept as is, since signing needs it)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    url = models.URLField(max_length=2000)
    events = ArrayField(models.CharField(max_length=64))
    # Workflow keys; empty means every workflow.
    workflows = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    description = models.CharField(max_length=500, blank=True)
    secret = models.CharField(max_length=100)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=500, blank=True)
    # Events in a row whose delivery failed for good; any 2xx resets it.
    failed_events = models.PositiveIntegerField(default=0)
    created_by = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "webhook_endpoint"
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return self.url

    @property
    def enabled(self) -> bool:
        return self.disabled_at is None


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


class WebhookDelivery(models.Model):
    """One event to one endpoint: pending until a 2xx, or failed after its last attempt."""

    event = models.ForeignKey(OutboxEvent, on_delete=models.CASCADE, related_name="deliveries")
    # Indexed by webhook_delivery_once (endpoint, event), which leads with it.
    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries", db_index=False
    )
    status = models.CharField(
        max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    available_at = models.DateTimeField(db_default=Now())
    nudged_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    leased_by = models.CharField(max_length=255, blank=True)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "webhook_delivery"
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event"], name="webhook_delivery_once"),
        ]
        indexes = [
            # The dispatcher's sweep: pending deliveries by due time.
            models.Index(
                fields=["available_at"],
                name="webhook_delivery_due_idx",
                condition=Q(status="pending"),
            ),
            # The claim's count of an endpoint's deliveries in flight (leased), which bounds
            # them (NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY): few rows, whatever its history.
            models.Index(
                fields=["endpoint"],
                name="webhook_delivery_leased_idx",
                condition=Q(lease_until__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event_id} -> {self.endpoint_id} ({self.status})"


class AttemptState(models.TextChoices):
    # Written before the POST, in its own committed transaction: an attempt that began is on
    # record even if its worker dies during it.
    STARTED = "started"
    # Its outcome written (the one change the append-only guard allows, events 0003): what the
    # receiver answered, or why there was no answer, a worker that died included.
    FINISHED = "finished"


class WebhookAttempt(models.Model):
    """One POST of one event to one endpoint, append-only but for its one change, from started
    to finished with its outcome. No foreign keys: the record stays when its endpoint is
    deleted, until retention removes it with its event."""

    delivery = models.ForeignKey(
        WebhookDelivery,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="attempt_log",
    )
    endpoint_id = models.UUIDField()
    event_id = models.UUIDField()
    event_type = models.CharField(max_length=64)
    attempt = models.PositiveIntegerField()
    state = models.CharField(
        max_length=16, choices=AttemptState.choices, default=AttemptState.STARTED
    )
    status_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    duration_ms = models.PositiveIntegerField()
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "webhook_attempt"
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["endpoint_id", "-id"], name="webhook_attempt_endpoint_idx"),
            # Retention deletes an event's attempts by it.
            models.Index(fields=["event_id"], name="webhook_attempt_event_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id} #{self.attempt}"
