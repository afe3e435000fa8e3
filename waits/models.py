"""The tables of event waits (docs/design/waits.md, "Waiting for events").

`received_event`: every event a client posted, kept for the longest lookback a node declares
(`manage.py purge_events` removes older ones). `event_wait`: one row per run and `wait_event`
node, resolved once (`resolved_at`), by an event or by its timeout. `wait_shape`: the sets of
match keys the waits of one event name use, so that an event is matched by an index lookup on
(name, match_hash) per shape instead of a scan of the waits.

No foreign key to trigger_instance: a run's history leaves through the retention functions,
which know nothing of this app; a wait of a run gone is purged with the events.
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models.functions import Now


class ReceivedEvent(models.Model):
    """An external event, as posted (idempotent by `event_id`)."""

    event_id = models.CharField(max_length=255, unique=True)
    name = models.CharField(max_length=200)
    data = models.JSONField(default=dict)
    # Hash of (name, data): a repeat with other data is a 422.
    data_hash = models.CharField(max_length=64)
    # Who posted it: "api:<key>", "admin:<user>", or the service's poster ("deliveries", ...).
    created_by = models.CharField(max_length=255, blank=True, default="")
    # The API key that posted it (triggers.ApiKey's id; no foreign key: events outlive nothing
    # and a key's row is never deleted, only revoked), and the workflows that key was limited to
    # then: a wait's look-back takes the event only for a run of one of them (NULL: any run).
    api_key_id = models.BigIntegerField(null=True, blank=True)
    workflows = ArrayField(models.CharField(max_length=100), null=True, blank=True)
    created_at = models.DateTimeField(db_default=Now(), editable=False)

    class Meta:
        db_table = "received_event"
        verbose_name = "posted event"
        indexes = [models.Index(fields=["name", "-created_at"], name="received_event_name_idx")]

    def __str__(self) -> str:
        return f"{self.name} {self.event_id}"


class EventWait(models.Model):
    """A run waiting at a `wait_event` node: for an event named `name` whose data holds every
    `match` value, until `deadline`. Resolved once: `received` with its `event`, or `timed_out`."""

    trigger_id = models.UUIDField()
    node_id = models.CharField(max_length=100)
    workflow_id = models.BigIntegerField()
    name = models.CharField(max_length=200)
    match = models.JSONField(default=dict)
    match_hash = models.CharField(max_length=64)
    deadline = models.DateTimeField()
    created_at = models.DateTimeField(db_default=Now(), editable=False)
    resolved_at = models.DateTimeField(null=True, blank=True)
    received = models.BooleanField(default=False)
    timed_out = models.BooleanField(default=False)
    event = models.JSONField(null=True, blank=True)
    # Who resolved it: the event's poster, "lookback", "timeout", "cancelled", or "recorded" (a
    # message wait resolved by its message's recorded state, its post lost: waits/sql.py).
    resolved_by = models.CharField(max_length=255, blank=True, default="")
    # The W3C traceparent of the request that posted the resolving event (empty: tracing off,
    # or not resolved by a post): the resumed step's span links to it (docs/design/observability.md, "Traces").
    trace_context = models.CharField(max_length=55, blank=True, default="", db_default="")
    # Its timeout as leased work (common/leased_work.py; waits/work.py WAITS): due at `deadline`,
    # nudged (`nudged_at`) as a timeout task, which leases it (`lease_until`, `leased_by`).
    lease_until = models.DateTimeField(null=True, blank=True)
    leased_by = models.CharField(max_length=255, blank=True, default="", db_default="")
    nudged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "event_wait"
        verbose_name = "waiting run"  # the admin's list: what each run waits for, until when
        verbose_name_plural = "waiting runs"
        constraints = [
            models.UniqueConstraint(fields=["trigger_id", "node_id"], name="event_wait_step")
        ]
        indexes = [
            # What an event resumes: the open waits for its name and one match.
            models.Index(
                fields=["name", "match_hash"],
                name="event_wait_open_idx",
                condition=models.Q(resolved_at__isnull=True),
            ),
            # What times out: the open waits by deadline (the waits' sweep of due timeouts).
            models.Index(
                fields=["deadline"],
                name="event_wait_deadline_idx",
                condition=models.Q(resolved_at__isnull=True),
            ),
            # Timeouts whose worker died (the waits' sweep of expired leases).
            models.Index(
                fields=["lease_until"],
                name="event_wait_lease_idx",
                condition=models.Q(resolved_at__isnull=True, lease_until__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.trigger_id}:{self.node_id} waits for {self.name}"


class WaitShape(models.Model):
    """One set of match keys (sorted) some wait for `name` used."""

    name = models.CharField(max_length=200)
    keys = models.JSONField(default=list)
    keys_text = models.CharField(max_length=1000)

    class Meta:
        db_table = "wait_shape"
        constraints = [
            models.UniqueConstraint(fields=["name", "keys_text"], name="wait_shape_unique")
        ]

    def __str__(self) -> str:
        return f"{self.name} by {self.keys_text}"
