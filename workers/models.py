from __future__ import annotations

from django.db import models

from triggers.models import TriggerInstance
from workflows.models import Workflow


class StepExecutionLog(models.Model):
    """One attempt at one node: append-only (PostgreSQL refuses UPDATE and DELETE).

    (trigger, node_id, attempt) is unique, so a step can never be logged twice, whatever
    redeliveries or zombie workers do.
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
    """The record of a provider send for (trigger, node) (docs/design.md, rule 6).

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

    class Meta:
        db_table = "send_ledger"
        constraints = [
            models.UniqueConstraint(fields=["trigger", "node_id"], name="send_ledger_once"),
            models.UniqueConstraint(fields=["idempotency_key"], name="send_ledger_key_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.idempotency_key} ({self.status})"
