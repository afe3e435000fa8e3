from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from importlib import import_module
from typing import Any

from django.contrib.postgres.fields import ArrayField
from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import QuerySet
from django.db.models.functions import Now

from common.tracing import trace_id
from workflows.models import Workflow, WorkflowVersion
from workflows.routing import PRIORITY_DEFAULT, PRIORITY_MAX, PRIORITY_MIN


class TriggerStatus(models.TextChoices):
    ENQUEUED = "enqueued"
    PROCESSING = "processing"
    # Paused at a wait_event node until its event or its timeout (waits/): never claimed.
    WAITING = "waiting"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


TERMINAL_STATUSES = (TriggerStatus.COMPLETED, TriggerStatus.FAILED, TriggerStatus.CANCELLED)


class TriggerInstance(models.Model):
    """One run of one workflow version. Status changes only through triggers.state."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # No index of its own: the unique (workflow, idempotency_key) and trigger_workflow_created_idx
    # lead with it. Every claim and release rewrites every index entry of the row (status is
    # indexed, so no update is HOT): an index that serves no query is paid for twice per step.
    workflow = models.ForeignKey(
        Workflow, on_delete=models.PROTECT, related_name="triggers", db_index=False
    )
    workflow_version = models.ForeignKey(
        WorkflowVersion, on_delete=models.PROTECT, related_name="triggers"
    )
    idempotency_key = models.CharField(max_length=255)
    # SHA-256 of the request that created the trigger, normalised (triggers.services
    # request_hash): a repeated key with another hash is not a replay (docs/design/api.md, HTTP API).
    # Empty for triggers created before it existed, which any repeat matches.
    request_hash = models.CharField(max_length=64, blank=True, default="", db_default="")
    # A business key the client may cancel by (POST /api/triggers/cancel/); empty: none.
    cancellation_key = models.CharField(max_length=255, blank=True, default="", db_default="")
    payload = models.JSONField(default=dict)
    # Whom the run is for: a recipient's key (recipients.Recipient), or empty. A plain column, not
    # a foreign key: erasing the person leaves their runs in the history under retention.
    recipient = models.CharField(max_length=200, blank=True, default="", db_default="")
    # The locale the request asked its messages in (a BCP 47 tag, workflows.locales), first in
    # the run's locale chain (docs/translations.md); empty: the recipient's and the defaults.
    locale = models.CharField(max_length=35, blank=True, default="", db_default="")
    # The tenant the run is sent for (tenants.Tenant's id), or empty (docs/tenants.md). A plain
    # column, as `recipient`: deleting the tenant leaves its runs in the history.
    tenant = models.CharField(max_length=64, blank=True, default="", db_default="")
    status = models.CharField(
        max_length=16, choices=TriggerStatus.choices, default=TriggerStatus.ENQUEUED
    )
    # The cursor: the node to run next; null once the run is finished.
    current_node_id = models.CharField(max_length=100, null=True, blank=True)  # noqa: DJ001 (null = finished)
    vars = models.JSONField(default=dict, blank=True)
    # 0-9, higher is more urgent: the workflow's unless the trigger request set one
    # (docs/design/rules.md, rule 11). Every nudge of this run carries it.
    priority = models.PositiveSmallIntegerField(
        default=PRIORITY_DEFAULT,
        db_default=PRIORITY_DEFAULT,
        validators=[MaxValueValidator(PRIORITY_MAX)],
    )
    # Failures of the current node; reset when the cursor advances.
    attempts = models.PositiveIntegerField(default=0)
    available_at = models.DateTimeField()
    lease_until = models.DateTimeField(null=True, blank=True)
    leased_by = models.CharField(max_length=255, blank=True)
    # When a broker message for the current due time was last published; the sweeper sends
    # another only when that one is presumed lost (docs/design/rules.md, rule 1).
    nudged_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    # Who created it ("api:<key name>", "admin:<user>", "manage.py ..."): the audit trail's
    # creator, and whose send cap its messages count against (workers/services/caps.py).
    created_by = models.CharField(max_length=255, blank=True, default="", db_default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    # Soft delete, orthogonal to status (docs/design/rules.md, rule 12): a deleted trigger is never
    # claimed again and its history stays; only the retention command removes the row.
    deleted_at = models.DateTimeField(null=True, blank=True)
    delete_reason = models.TextField(blank=True, default="", db_default="")
    # The W3C `traceparent` of the intake request's span (docs/design/observability.md, "Traces"): every step
    # span of the run is its child, whichever process runs it and however late. Written by intake
    # only while tracing is on; empty otherwise.
    trace_context = models.CharField(max_length=55, blank=True, default="", db_default="")

    class Meta:
        db_table = "trigger_instance"
        ordering = ["-created_at"]
        constraints = [
            # Unique among the triggers that are not deleted: after a delete the key is free.
            models.UniqueConstraint(
                fields=["workflow", "idempotency_key"],
                condition=models.Q(deleted_at__isnull=True),
                name="trigger_workflow_idempotency_key",
            ),
            models.CheckConstraint(
                condition=models.Q(priority__gte=PRIORITY_MIN, priority__lte=PRIORITY_MAX),
                name="trigger_priority_range",
            ),
        ]
        indexes = [
            # The sweeper's two questions: what is due, and whose lease expired. Deleted
            # triggers are out of both (never claimed again).
            models.Index(
                fields=["available_at"],
                name="trigger_due_idx",
                condition=models.Q(status="enqueued", deleted_at__isnull=True),
            ),
            models.Index(
                fields=["lease_until"],
                name="trigger_lease_idx",
                condition=models.Q(status="processing", deleted_at__isnull=True),
            ),
            models.Index(fields=["status", "-created_at"], name="trigger_status_created_idx"),
            models.Index(fields=["workflow", "-created_at"], name="trigger_workflow_created_idx"),
            models.Index(fields=["-created_at"], name="trigger_created_idx"),
            # A workflow's runs by the time they ended (its admin charts, triggers/charts.py):
            # finished rows only, so only the release that ends a run adds an entry.
            models.Index(
                fields=["workflow", "completed_at"],
                name="trigger_workflow_completed_idx",
                condition=models.Q(completed_at__isnull=False),
            ),
            # A person's runs (GET /api/triggers/?recipient=): only rows that carry one.
            models.Index(
                fields=["recipient", "-created_at"],
                name="trigger_recipient_created_idx",
                condition=~models.Q(recipient=""),
            ),
            # A tenant's runs (GET /api/triggers/?tenant=): only rows that carry one.
            models.Index(
                fields=["tenant", "-created_at"],
                name="trigger_tenant_created_idx",
                condition=~models.Q(tenant=""),
            ),
            # Cancel by key: only rows that carry one, so the claims and releases of the others
            # (most rows) do not maintain it.
            models.Index(
                fields=["cancellation_key"],
                name="trigger_cancellation_key_idx",
                condition=~models.Q(cancellation_key=""),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.id} ({self.status})"

    @property
    def cursor(self) -> dict[str, str] | None:
        if self.current_node_id is None:
            return None
        return {"current_node_id": self.current_node_id}

    @property
    def trace_id(self) -> str | None:
        """The id of the run's trace (docs/design/observability.md, "Traces"), or None when intake stored no
        trace context."""
        return trace_id(self.trace_context) if self.trace_context else None

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES


# How long before its run's creation one of its events may be stamped: the bound the drop of the
# events' partitions relies on (triggers migration 0030, MARGIN_SECONDS), from which a run's
# events are read, so that PostgreSQL reads the partitions from its creation on only.
EVENTS_BEFORE_RUN = timedelta(
    seconds=import_module("triggers.migrations.0030_trigger_event_partitioned").MARGIN_SECONDS
)


class TriggerEventQuerySet(models.QuerySet["TriggerEvent"]):
    def of_run(self, run: TriggerInstance) -> TriggerEventQuerySet:
        """The events of `run`: PostgreSQL reads the partitions from its creation (less
        EVENTS_BEFORE_RUN) on, and the table from before the partitions, not every one."""
        return self.filter(trigger_id=run.pk, created_at__gte=run.created_at - EVENTS_BEFORE_RUN)


class TriggerEvent(models.Model):
    """Append-only audit of every status change (PostgreSQL refuses UPDATE and DELETE).

    The table is partitioned by `created_at` (triggers migration 0030; docs/reliability/index.md,
    "History by partition"): read a run's events with `of_run`, which prunes the partitions."""

    # Indexed by trigger_event_trigger_idx (trigger, created_at), which leads with it.
    trigger = models.ForeignKey(
        TriggerInstance, on_delete=models.CASCADE, related_name="events", db_index=False
    )
    from_status = models.CharField(max_length=16, blank=True)
    to_status = models.CharField(max_length=16)
    reason = models.TextField(blank=True)
    actor = models.CharField(max_length=255, blank=True)
    node_id = models.CharField(max_length=100, null=True, blank=True)  # noqa: DJ001 (null = no node)
    # The database's clock, like every other write of the state machine: one clock orders events.
    created_at = models.DateTimeField(db_default=Now(), editable=False)

    objects = TriggerEventQuerySet.as_manager()

    class Meta:
        db_table = "trigger_event"
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["trigger", "created_at"], name="trigger_event_trigger_idx")]

    def __str__(self) -> str:
        return f"{self.trigger_id}: {self.from_status or '-'} -> {self.to_status}"


class ApiKeyScope(models.TextChoices):
    """What an API key may do (docs/design/api.md, "HTTP API"); each view declares the scope each of
    its methods needs (common/scopes.py)."""

    # Create, read and cancel triggers with their logs; read workflows and their stats.
    TRIGGER = "trigger"
    # Everything: `trigger`, plus writing workflows, webhooks, workers, deleting triggers and
    # the health details.
    ADMIN = "admin"


class ApiKey(models.Model):
    """A client's API key. Only its SHA-256 is stored; the key itself is shown once."""

    # Unique, so that a name says which client a request came from (ApiClient, audit actors).
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    scope = models.CharField(
        max_length=10, choices=ApiKeyScope.choices, default=ApiKeyScope.TRIGGER
    )
    # The workflow keys this key may reach; empty: every workflow. Only `trigger` keys are
    # limited (an admin key manages webhooks and workers, which span every workflow).
    workflows = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    # Refused (401) from this moment on; null: never expires.
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "api_key"
        ordering = ["name"]
        verbose_name = "API key"
        # A constraint, not unique=True, which would add a LIKE-only index no query uses.
        constraints = [models.UniqueConstraint(fields=["name"], name="api_key_name_unique")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def has_scope(self, scope: str) -> bool:
        """`admin` includes `trigger`."""
        return self.scope == ApiKeyScope.ADMIN or self.scope == scope

    def allows_workflow(self, key: str) -> bool:
        """Whether this key may reach the workflow `key` (and its triggers)."""
        return not self.workflows or key in self.workflows

    def limit_queryset(
        self, queryset: QuerySet[Any], field: str = "workflow__key"
    ) -> QuerySet[Any]:
        """`queryset` narrowed to this key's workflows; `field` is the path to the workflow key
        (`workflow__key` for triggers and step logs, `key` for workflows)."""
        if not self.workflows:
            return queryset
        return queryset.filter(**{f"{field}__in": self.workflows})

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now


class TriggerActionKind(models.TextChoices):
    """What a bulk action does to each run it matched (triggers/actions.py)."""

    CANCEL = "cancel"  # an unfinished run: cancelled
    RETRY = "retry"  # a failed run: again from the node that failed
    REPLAY = "replay"  # any run: a new run of the same version, payload and recipient


class TriggerActionStatus(models.TextChoices):
    RUNNING = "running"
    DONE = "done"
    # Its chunks kept failing (ACTION_CHUNK_ATTEMPTS in a row): stopped, the reason in last_error.
    FAILED = "failed"


class TriggerAction(models.Model):
    """One bulk action on runs (POST /api/triggers/actions/, docs/bulk-actions.md): who asked,
    the filter, the runs it matched when asked (`run_ids`, in id order) and what became of them.
    The workers act on them a chunk at a time as leased work (triggers/action_work.py); `cursor`
    is how many of `run_ids` are done, moved in the transaction that acts on them, so a chunk is
    done entirely or not at all and never twice."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    action = models.CharField(max_length=16, choices=TriggerActionKind.choices)
    filter = models.JSONField(default=dict)
    # The client's key for the request: the same key answers the same action (empty: none).
    idempotency_key = models.CharField(max_length=255, blank=True, default="")
    requested_by = models.CharField(max_length=255)
    run_ids = ArrayField(models.UUIDField(), default=list)
    matched = models.PositiveIntegerField(default=0)
    cursor = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    # Runs that no longer matched when their chunk came (finished meanwhile, say).
    skipped = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)
    # The first errors, [{"run": id, "error": text}], at most ACTION_ERROR_SAMPLE of them.
    error_sample = models.JSONField(default=list, blank=True)
    last_error = models.TextField(blank=True, default="")
    # Chunks that failed in a row (reset by one that succeeds).
    attempts = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(
        max_length=16, choices=TriggerActionStatus.choices, default=TriggerActionStatus.RUNNING
    )
    created_at = models.DateTimeField(db_default=Now(), editable=False)
    updated_at = models.DateTimeField(db_default=Now())
    finished_at = models.DateTimeField(null=True, blank=True)
    # Leased work (common/leased_work.py; triggers/action_work.py ACTIONS), as a fan-out's.
    available_at = models.DateTimeField(
        db_default=models.Func(function="now", output_field=models.DateTimeField())
    )
    lease_until = models.DateTimeField(null=True, blank=True)
    leased_by = models.CharField(max_length=255, blank=True, default="")
    nudged_at = models.DateTimeField(null=True, blank=True, db_default=Now())

    class Meta:
        db_table = "trigger_action"
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="trigger_action_idempotency_key",
            ),
        ]
        indexes = [
            # The actions' sweeps (triggers/statements/actions_sweep_*.sql): running ones only.
            models.Index(
                fields=["available_at"],
                name="trigger_action_running_due_idx",
                condition=models.Q(status="running"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.id} ({self.status})"
