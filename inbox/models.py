"""The in-app inbox's one table (docs/design/inbox.md, "In-app inbox").

A message belongs to a recipient by key (`recipient`, recipients.Recipient's key: a plain
column, as on trigger_instance, so that a run's history does not hold the person) and to the
step that stored it (`trigger_id`, `node_id`, unique together: a step stores at most one
message, whatever crashes and retries happen). Its states are times, null until they happen;
`archived_at` may be cleared again (unarchive), `read_at` too (mark unread); `first_read_at`, the
first read's time, never is: the engagement funnel counts a message opened once, however often
it is marked unread and read again (docs/funnel.md, "In-app messages").

A recipient's inbox tokens carry a generation (inbox/tokens.py); TokenGeneration holds the
current one of each recipient whose tokens were ever revoked (no row: generation 0).
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models.functions import Now

from recipients.models import KEY_MAX_LENGTH


class InboxMessage(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    recipient = models.CharField(max_length=KEY_MAX_LENGTH)
    trigger_id = models.UUIDField()
    node_id = models.CharField(max_length=100)
    workflow_key = models.CharField(max_length=100)
    category = models.CharField(max_length=100, blank=True, default="", db_default="")
    title = models.TextField()
    # The body as rendered (plain text with Markdown marks) and as escaped HTML.
    body = models.TextField()
    body_html = models.TextField()
    action_url = models.TextField(blank=True, default="", db_default="")
    # Free JSON for the client (the node's `data`).
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(db_default=Now(), editable=False)
    seen_at = models.DateTimeField(null=True, blank=True)
    read_at = models.DateTimeField(null=True, blank=True)
    first_read_at = models.DateTimeField(null=True, blank=True, editable=False)
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "inbox_message"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["trigger_id", "node_id"], name="inbox_message_step"),
        ]
        indexes = [
            # The feed, newest first, and its cursor (created_at, id).
            models.Index(fields=["recipient", "-created_at", "-id"], name="inbox_message_feed_idx"),
            # The counts: a person's unread messages not archived.
            models.Index(
                fields=["recipient"],
                name="inbox_message_unread_idx",
                condition=models.Q(read_at__isnull=True, archived_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.recipient}: {self.title[:50]}"


class TokenGeneration(models.Model):
    """The generation a recipient's inbox token must carry (inbox/tokens.py): raised by a rotate
    and by erasing the person, which revokes every token of an earlier one. Keyed by
    `generation_digest` of the recipient's key, not the key: the row outlives the person's
    erasure (so that their old tokens stay dead if the key comes back) without keeping their id."""

    digest = models.CharField(primary_key=True, max_length=64)
    generation = models.BigIntegerField()

    class Meta:
        db_table = "inbox_token_generation"

    def __str__(self) -> str:
        return f"{self.digest[:12]}…: {self.generation}"
