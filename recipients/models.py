"""Recipients, their preferences, topics and fan-outs (docs/design/recipients.md, "Recipients").

A recipient is keyed by the client system's own user id (`key`, 1-200 characters): the API's
`/api/recipients/<key>/`. Runs name their recipient by that key (`trigger_instance.recipient`,
a plain column, not a foreign key: erasing a person leaves their runs in the history under
retention).
"""

from __future__ import annotations

import uuid

from django.core.validators import MinLengthValidator
from django.db import models
from django.db.models.functions import Now

KEY_MAX_LENGTH = 200
# A profile's fields, as the API writes and shows them and templates read them (`recipient.*`).
PROFILE_FIELDS = (
    "email",
    "phone",
    "name",
    "locale",
    "timezone",
    "quiet_hours",
    "channels",
    "properties",
)


class Recipient(models.Model):
    """One person's profile: addresses, locale and time zone, per-channel data, free properties
    for templates, and their notification preferences."""

    key = models.CharField(
        primary_key=True, max_length=KEY_MAX_LENGTH, validators=[MinLengthValidator(1)]
    )
    email = models.CharField(max_length=254, blank=True, default="", db_default="")
    # E.164 (+ and up to 15 digits).
    phone = models.CharField(max_length=16, blank=True, default="", db_default="")
    name = models.CharField(max_length=200, blank=True, default="", db_default="")
    # A BCP 47 tag (`en`, `pt-BR`).
    locale = models.CharField(max_length=35, blank=True, default="", db_default="")
    # An IANA zone (`Europe/Paris`).
    timezone = models.CharField(max_length=64, blank=True, default="", db_default="")
    # When, in `timezone`, they want no message that is not urgent: {"start", "end", "days"?}
    # (workflows/quiet_hours.py), {} for none.
    quiet_hours = models.JSONField(default=dict, blank=True, db_default={})
    # Per-channel data (a Slack user or webhook, push subscriptions, ...): {channel: object}.
    channels = models.JSONField(default=dict, blank=True)
    # Free JSON the templates read as `recipient.properties`.
    properties = models.JSONField(default=dict, blank=True)
    # {"channels": {channel: bool}, "categories": {slug: bool | {channel: bool}},
    #  "workflows": {key: bool}}: what the person turned on or off.
    preferences = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(db_default=Now(), editable=False)
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "recipient"
        ordering = ["key"]
        indexes = [
            models.Index(fields=["email"], name="recipient_email_idx"),
        ]

    def __str__(self) -> str:
        return self.key


class RecipientTenantPreferences(models.Model):
    """A person's preferences for the messages of one tenant (docs/tenants.md): the same shape as
    Recipient.preferences, asked before them for a run of that tenant. Goes with the person
    (erased) and with the tenant (deleted)."""

    recipient = models.ForeignKey(
        Recipient, on_delete=models.CASCADE, related_name="tenant_preferences"
    )
    tenant = models.ForeignKey(
        "tenants.Tenant", on_delete=models.CASCADE, related_name="recipient_preferences"
    )
    preferences = models.JSONField(default=dict)
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "recipient_tenant_preferences"
        constraints = [
            models.UniqueConstraint(
                fields=["recipient", "tenant"], name="recipient_tenant_preferences_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.recipient_id} for {self.tenant_id}"


class Category(models.Model):
    """A kind of notification the operator names (`billing`, `comments`), which workflows carry
    and preferences address; `defaults` says which channels are on when a person said nothing
    ({channel: bool}; a channel not named is on)."""

    slug = models.SlugField(primary_key=True, max_length=100)
    name = models.CharField(max_length=200, blank=True, default="")
    description = models.TextField(blank=True, default="")
    defaults = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "recipient_category"
        ordering = ["slug"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.slug


class Topic(models.Model):
    """An audience: a workflow triggered for a topic runs once for each subscriber."""

    key = models.CharField(
        primary_key=True, max_length=KEY_MAX_LENGTH, validators=[MinLengthValidator(1)]
    )
    name = models.CharField(max_length=200, blank=True, default="")
    description = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(db_default=Now(), editable=False)

    class Meta:
        db_table = "recipient_topic"
        ordering = ["key"]

    def __str__(self) -> str:
        return self.key


class TopicSubscription(models.Model):
    """A recipient subscribed to a topic. The id orders a topic's subscribers for cursors and
    for a fan-out's chunks."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="subscriptions")
    recipient = models.ForeignKey(Recipient, on_delete=models.CASCADE, related_name="subscriptions")
    created_at = models.DateTimeField(db_default=Now(), editable=False)

    class Meta:
        db_table = "recipient_topic_subscription"
        constraints = [
            models.UniqueConstraint(
                fields=["topic", "recipient"], name="topic_subscription_unique"
            ),
        ]
        indexes = [
            # A fan-out's chunks and the subscribers' cursor: (topic, id).
            models.Index(fields=["topic", "id"], name="topic_subscription_chunk_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.topic_id}: {self.recipient_id}"


class FanoutStatus(models.TextChoices):
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    # Stopped by POST /api/fanouts/<id>/cancel/ (triggers/fanout_cancel.py): no more runs.
    CANCELLED = "cancelled"


class Fanout(models.Model):
    """One trigger request for a topic: a run for each subscriber (but `exclude`), created in
    chunks by the workers; `cursor` is the last subscription id done, so a fan-out resumed after
    a crash goes on where it stopped (and the runs' idempotency keys, derived from the request's
    key and the recipient, keep any chunk from creating a run twice)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workflow_key = models.CharField(max_length=200)
    topic_key = models.CharField(max_length=KEY_MAX_LENGTH)
    idempotency_key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    payload = models.JSONField(default=dict)
    exclude = models.JSONField(default=list, blank=True)
    priority = models.PositiveSmallIntegerField(null=True, blank=True)
    cancellation_key = models.CharField(max_length=255, blank=True, default="")
    # The tenant each run is sent for (tenants.Tenant's id), or empty (docs/tenants.md).
    tenant = models.CharField(max_length=64, blank=True, default="", db_default="")
    status = models.CharField(
        max_length=16, choices=FanoutStatus.choices, default=FanoutStatus.RUNNING
    )
    cursor = models.BigIntegerField(default=0)
    created = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True, default="")
    created_by = models.CharField(max_length=255, blank=True, default="")
    # The W3C traceparent of the intake request's span (empty: tracing off): each run the
    # fan-out makes starts a trace of its own that links to it (docs/design/observability.md, "Traces").
    trace_context = models.CharField(max_length=55, blank=True, default="", db_default="")
    created_at = models.DateTimeField(db_default=Now(), editable=False)
    updated_at = models.DateTimeField(db_default=Now())
    finished_at = models.DateTimeField(null=True, blank=True)
    # Leased work (common/leased_work.py; triggers/work.py FANOUTS): a running fan-out's next
    # chunk is due at `available_at`; a worker doing it holds `lease_until` under `leased_by`;
    # `nudged_at` is its chunk task's last publication (set at the start, which publishes one).
    # now(), the transaction's clock the leased-work statements compare with (Django's Now() is
    # the statement's, later within one transaction).
    available_at = models.DateTimeField(
        db_default=models.Func(function="now", output_field=models.DateTimeField())
    )
    lease_until = models.DateTimeField(null=True, blank=True)
    leased_by = models.CharField(max_length=255, blank=True, default="")
    nudged_at = models.DateTimeField(null=True, blank=True, db_default=Now())

    class Meta:
        db_table = "recipient_fanout"
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["workflow_key", "idempotency_key"], name="fanout_idempotency_key"
            ),
        ]
        indexes = [
            # The fan-outs' sweeps (triggers/statements/fanouts_sweep_*.sql): only running ones.
            models.Index(
                fields=["available_at"],
                name="fanout_running_due_idx",
                condition=models.Q(status="running"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.id} ({self.status})"
