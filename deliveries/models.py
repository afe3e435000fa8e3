"""Delivery events: what providers report about messages they accepted (docs/design/deliveries.md,
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
    misrouted report: docs/security/providers.md, "Provider reports"). Kept for the operator, stored once.
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


class FunnelCount(models.Model):
    """The engagement funnel's rollup (docs/funnel.md): how many of a workflow's messages, by
    node and channel, came to each outcome (the step's decision `sent`, `skipped`, `failed`;
    the provider's first `delivered`, `opened`, `clicked`, `bounced`, `complained`,
    `unsubscribed` of each message), per hour the send began (UTC).

    Kept by PostgreSQL: the reports and the inbox's marks by row triggers on their inserts
    (delivery_event, inbox_message: deliveries migrations 0006 and 0007), the steps' decisions
    by the funnel's sweep, which rolls up the step logs behind a watermark (FunnelSweep,
    migration 0008); never written by Python. `slot` spreads one hour's counter over rows (the
    writing connection's pid modulo 16; the sweep, one writer, writes 0), so concurrent writers
    do not queue on one row lock; a read sums the slots. The rows hold no person and stay when
    retention purges the runs they count.
    """

    # Indexed by funnel_count_once, which leads with it.
    workflow = models.ForeignKey(
        "workflows.Workflow", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    hour = models.DateTimeField()
    node_id = models.CharField(max_length=100)
    channel = models.CharField(max_length=16)
    outcome = models.CharField(max_length=16)
    # The run's tenant once runs have one (issue 48 §3): '' until then, so that a tenant's funnel
    # is a filter on this column, not a new table.
    tenant = models.CharField(max_length=100, blank=True, db_default="")
    slot = models.SmallIntegerField()
    count = models.BigIntegerField()

    class Meta:
        db_table = "funnel_count"
        constraints = [
            models.UniqueConstraint(
                fields=["workflow", "hour", "node_id", "channel", "outcome", "tenant", "slot"],
                name="funnel_count_once",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.workflow_id}/{self.node_id} {self.outcome} {self.hour:%Y-%m-%d %H}h"


class TransactionIdField(models.Field):
    """PostgreSQL's `xid8`: a transaction's 64-bit id (`pg_current_xact_id()`), which never
    wraps around. Read as an int."""

    def db_type(self, connection: object) -> str:
        return "xid8"

    def from_db_value(self, value: object, expression: object, connection: object) -> int | None:
        return None if value is None else int(str(value))


class FunnelSweep(models.Model):
    """The funnel sweep's watermark, one row (docs/funnel.md, "How it stays fast"): every step
    log whose transaction id (`step_log.txid`, a column PostgreSQL fills and Django does not
    read) is below `swept_below` is counted in `funnel_count`, and none at or above it. The
    sweep (`notiflow_funnel_sweep_v1`, deliveries migration 0008) counts the step logs between
    the mark and the oldest transaction still running, and moves the mark there, in one
    transaction."""

    id = models.SmallIntegerField(primary_key=True, default=1)
    swept_below = TransactionIdField()
    swept_at = models.DateTimeField(null=True)

    class Meta:
        db_table = "funnel_sweep"
        constraints = [models.CheckConstraint(condition=models.Q(id=1), name="funnel_sweep_one")]

    def __str__(self) -> str:
        return f"funnel swept below {self.swept_below}"
