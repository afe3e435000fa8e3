from __future__ import annotations

from datetime import datetime

from django.contrib.postgres.fields import ArrayField
from django.db import models

from triggers.models import TriggerInstance
from workflows.definition import FLOW_KEY_MAX
from workflows.models import Workflow


class StepLogQuerySet(models.QuerySet["StepExecutionLog"]):
    def of_run_created(self, created_at: datetime) -> StepLogQuerySet:
        """The step logs in the partition of a run created at `created_at`, and in the old
        table: where all of that run's are, so PostgreSQL reads those two partitions only."""
        return self.filter(
            models.Q(run_created_at=created_at) | models.Q(run_created_at__isnull=True)
        )


class StepExecutionLog(models.Model):
    """One attempt at one node: append-only (PostgreSQL refuses UPDATE and DELETE).

    (trigger, node_id, attempt) is unique, so a step can never be logged twice, whatever
    redeliveries or zombie workers do.

    The table has one column this model leaves out: `txid` (xid8), the transaction that wrote the
    row, filled by PostgreSQL's default; the funnel's sweep counts step logs by it behind its
    watermark (deliveries migration 0008, docs/funnel.md).

    The table is partitioned by `run_created_at`, its run's `created_at`, which the release
    writes (workers migration 0014; docs/reliability/index.md, "History by partition"); a row
    written without it (by a release before version 6, or here) goes to the DEFAULT partition,
    the table as it was before. The unique (trigger, node_id, attempt) and the primary key are
    each partition's own: a run's rows are all in its partition (and the old table).
    """

    # Indexed by step_log_once_per_attempt and step_log_trigger_idx, which lead with it.
    trigger = models.ForeignKey(
        TriggerInstance, on_delete=models.CASCADE, related_name="steps", db_index=False
    )
    workflow = models.ForeignKey(Workflow, on_delete=models.CASCADE, related_name="+")
    node_id = models.CharField(max_length=100)
    node_type = models.CharField(max_length=16)
    attempt = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    input = models.JSONField()
    output = models.JSONField(null=True, blank=True)
    success = models.BooleanField()
    error = models.TextField(blank=True)
    # The partition key: written by the release, read to prune (of_run_created).
    run_created_at = models.DateTimeField(null=True, editable=False)

    objects = StepLogQuerySet.as_manager()

    class Meta:
        db_table = "step_log"
        ordering = ["started_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["trigger", "node_id", "attempt"], name="step_log_once_per_attempt"
            ),
        ]
        indexes = [
            models.Index(fields=["trigger", "started_at"], name="step_log_trigger_idx"),
            models.Index(fields=["node_id", "-started_at"], name="step_log_node_idx"),
            models.Index(fields=["started_at"], name="step_log_started_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.trigger_id}/{self.node_id}#{self.attempt}"


class SendStatus(models.TextChoices):
    SENDING = "sending"
    SENT = "sent"


class SendLedger(models.Model):
    """The record of a provider send for (trigger, node) (docs/design/rules.md, rule 6).

    Written `sending` and committed before the provider is called, completed to `sent` with the
    provider's answer after it. The only update PostgreSQL allows is sending -> sent (or a
    repeated `sending` with another send_count); nothing is deleted but by retention.
    """

    # Indexed by send_ledger_once (trigger, node_id), which leads with it.
    trigger = models.ForeignKey(
        TriggerInstance, on_delete=models.CASCADE, related_name="sends", db_index=False
    )
    node_id = models.CharField(max_length=100)
    # Unique through a constraint (send_ledger_key_unique), not unique=True, which would add a
    # second, LIKE-only index (varchar_pattern_ops) that no query uses.
    idempotency_key = models.CharField(max_length=200)
    channel = models.CharField(max_length=16)
    status = models.CharField(max_length=16, choices=SendStatus.choices)
    # How many times the provider was called: more than 1 only after a crash or timeout between
    # the provider call and the ledger commit (the documented duplicate window); 0 when the claim
    # opened the row but the templates failed before any call.
    send_count = models.PositiveIntegerField(default=1)
    result = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # The named provider (workers/providers) that accepted the message, and the id it gave the
    # message: what its delivery status callbacks name (deliveries/). Set with `sent`.
    provider = models.CharField(max_length=50, blank=True, db_default="")
    provider_message_id = models.CharField(max_length=255, blank=True, db_default="")
    # The provider of every attempt that reached one, in order (a failover shows as two names);
    # an attempt cut off by a crash before its outcome was recorded is counted in send_count only.
    providers = ArrayField(models.CharField(max_length=50), blank=True, db_default=[])

    class Meta:
        db_table = "send_ledger"
        constraints = [
            models.UniqueConstraint(fields=["trigger", "node_id"], name="send_ledger_once"),
            models.UniqueConstraint(fields=["idempotency_key"], name="send_ledger_key_unique"),
        ]
        indexes = [
            # A status callback finds its send by the provider's message id.
            models.Index(
                fields=["provider_message_id"],
                name="send_ledger_provider_msg_idx",
                condition=~models.Q(provider_message_id=""),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.idempotency_key} ({self.status})"


class ThrottlePass(models.Model):
    """A run that passed a throttle node: what the node counts, per workflow, node and rendered
    key, over its sliding window (workers/services/flow.py). One per run and node, so a step
    run again after a crash passes again without counting twice. Working state, not history:
    the sweeper deletes each row once it is past every window it can count in (`expires_at`)."""

    # Indexed by the composite index below, which leads with it.
    workflow = models.ForeignKey(
        Workflow, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    node_id = models.CharField(max_length=100)
    key = models.CharField(max_length=FLOW_KEY_MAX)
    # Not a foreign key: retention purges triggers with plain SQL, and the row outlives nothing.
    trigger_id = models.UUIDField()
    passed_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta:
        db_table = "throttle_pass"
        constraints = [
            models.UniqueConstraint(fields=["trigger_id", "node_id"], name="throttle_pass_once"),
        ]
        indexes = [
            models.Index(
                fields=["workflow", "node_id", "key", "passed_at"], name="throttle_pass_count_idx"
            ),
            models.Index(fields=["expires_at"], name="throttle_pass_expires_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.node_id}[{self.key}] {self.trigger_id}"


class Digest(models.Model):
    """The runs that reached a digest node with one rendered key within one window: opened by
    the first (`opener_id`), which waits for `closes_at` and then continues with all of them;
    closed (`closed_at`) by that run once the window is over, after which nothing joins.
    Working state: the sweeper deletes a digest a week after its window closed."""

    id = models.UUIDField(primary_key=True)
    # Indexed by the composite index below, which leads with it.
    workflow = models.ForeignKey(
        Workflow, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    node_id = models.CharField(max_length=100)
    key = models.CharField(max_length=FLOW_KEY_MAX)
    opener_id = models.UUIDField()  # the run that opened it (a trigger id)
    opened_at = models.DateTimeField()
    closes_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "digest"
        indexes = [
            models.Index(
                fields=["workflow", "node_id", "key", "-closes_at"], name="digest_open_idx"
            ),
            models.Index(fields=["closes_at"], name="digest_closes_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.node_id}[{self.key}] {self.id}"


class DigestEntry(models.Model):
    """One run in a digest (its opener's too), with the payload it brought. A run is in at most
    one digest per node (the unique constraint), whatever crashes and redeliveries do."""

    digest = models.ForeignKey(
        Digest, on_delete=models.CASCADE, related_name="entries", db_index=False
    )
    trigger_id = models.UUIDField()
    node_id = models.CharField(max_length=100)
    payload = models.JSONField()
    joined_at = models.DateTimeField()

    class Meta:
        db_table = "digest_entry"
        ordering = ["joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["trigger_id", "node_id"], name="digest_entry_once"),
        ]
        indexes = [models.Index(fields=["digest", "joined_at"], name="digest_entry_digest_idx")]

    def __str__(self) -> str:
        return f"{self.digest_id} {self.trigger_id}"
