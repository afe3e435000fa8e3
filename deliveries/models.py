"""Delivery events: what providers report about messages they accepted (docs/design.md,
"Deliveries"). Append-only, like the other logs (rule 8). And the suppression list those reports,
unsubscribes and operators add to, which the engine checks before every send."""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Now


class DeliveryEvent(models.Model):
    """One thing a provider reported about one sent message to one recipient: delivered,
    bounced, complained, opened... (anymail's normalised event types; Twilio's statuses mapped
    onto them). Matched to its send (trigger and node) when it arrives; one that matches no send
    is logged and not stored.

    `trigger_id` is a plain column, not a foreign key: retention removes a purged trigger's
    events in its own functions (deliveries migration 0002), and a provider's late report about
    a trigger already purged must still be acknowledged, not refused by a constraint.
    """

    trigger_id = models.UUIDField()
    node_id = models.CharField(max_length=100)
    channel = models.CharField(max_length=16)
    provider = models.CharField(max_length=50)
    event = models.CharField(max_length=20)
    recipient = models.CharField(max_length=320, blank=True)
    provider_message_id = models.CharField(max_length=255, blank=True)
    # What makes a redelivered report the same one (the provider's event id, or a hash of the
    # report): stored once.
    dedupe_key = models.CharField(max_length=64, unique=True)
    occurred_at = models.DateTimeField()
    received_at = models.DateTimeField(db_default=Now())
    description = models.TextField(blank=True)
    raw = models.JSONField(default=dict)

    class Meta:
        db_table = "delivery_event"
        ordering = ["occurred_at", "id"]
        indexes = [
            models.Index(fields=["trigger_id", "occurred_at"], name="delivery_event_trigger_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.trigger_id}/{self.node_id} {self.event} {self.recipient}"


# What the API and the admin show of a delivery event (the trigger's id is in the URL or beside).
SHOWN_FIELDS = (
    "node_id",
    "channel",
    "provider",
    "event",
    "recipient",
    "provider_message_id",
    "occurred_at",
    "received_at",
    "description",
)


class UnmatchedReport(models.Model):
    """A provider's report that named a send but changed nothing, because its provider is not
    the one that accepted the send, or its recipient is not one the send went to (a forged or
    misrouted report: docs/security.md, "Provider reports"). Kept for the operator, stored once.
    """

    trigger_id = models.UUIDField()
    node_id = models.CharField(max_length=100)
    channel = models.CharField(max_length=16)
    # Who reported (the ESP, or `twilio`) and who accepted the send (a named provider).
    reporter = models.CharField(max_length=50)
    provider = models.CharField(max_length=50, blank=True)
    event = models.CharField(max_length=20)
    recipient = models.CharField(max_length=320, blank=True)
    provider_message_id = models.CharField(max_length=255, blank=True)
    reason = models.CharField(max_length=200)
    dedupe_key = models.CharField(max_length=64, unique=True)
    received_at = models.DateTimeField(db_default=Now())
    raw = models.JSONField(default=dict)

    class Meta:
        db_table = "delivery_unmatched_report"
        ordering = ["received_at", "id"]

    def __str__(self) -> str:
        return f"{self.reporter} {self.event} {self.recipient}: {self.reason}"


class SuppressionScope(models.TextChoices):
    ALL = "all"  # a hard bounce, a complaint, an operator: no message of the channel
    MARKETING = "marketing"  # a one-click unsubscribe: no message of a marketing workflow


class SuppressionReason(models.TextChoices):
    BOUNCED = "bounced"
    COMPLAINED = "complained"
    UNSUBSCRIBED = "unsubscribed"
    MANUAL = "manual"


class Suppression(models.Model):
    """A recipient no send of `channel` (in `scope`) may reach: checked by the engine before every
    provider call (deliveries/suppression.py). Added by delivery events, one-click unsubscribes
    and operators; removed only by operators."""

    channel = models.CharField(max_length=16)
    # Normalised: an email address in lower case, a phone number as E.164.
    recipient = models.CharField(max_length=320)
    scope = models.CharField(
        max_length=16, choices=SuppressionScope.choices, default=SuppressionScope.ALL
    )
    reason = models.CharField(max_length=16, choices=SuppressionReason.choices)
    # What added it: a delivery event's id, "unsubscribe", "api:<key name>", "admin:<user>"...
    source = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "suppression"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["channel", "recipient", "scope"], name="suppression_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.channel}:{self.recipient} ({self.scope}, {self.reason})"
