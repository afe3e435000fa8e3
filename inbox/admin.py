"""A recipient's in-app messages in the admin, read-only (docs/operations/people-and-channels.md): search by the
recipient's key, filter by state and category; and the inbox panel of the recipient's page,
added through recipients.hooks.RECIPIENT_PAGE_PANELS (recipients cannot import inbox)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from common.admin import ReadOnlyAdminMixin, json_field, list_time, text_cut, time_column
from inbox.models import InboxMessage
from inbox.services import inbox_counts
from recipients.admin import PANEL_ROWS, recipient_panel
from recipients.models import Recipient


class StateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("unseen", "unseen"), ("unread", "unread"), ("archived", "archived")]

    def queryset(self, request: HttpRequest, queryset: Any) -> Any:
        field = {"unseen": "seen_at", "unread": "read_at"}.get(self.value() or "")
        if field:
            return queryset.filter(**{f"{field}__isnull": True, "archived_at__isnull": True})
        if self.value() == "archived":
            return queryset.filter(archived_at__isnull=False)
        return queryset


@admin.register(InboxMessage)
class InboxMessageAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("recipient", "title", "category", "workflow_key", "created", "read_at")
    list_filter = (StateFilter, "category")
    search_fields = ("=recipient",)
    ordering = ("-created_at", "-id")
    show_full_result_count = False
    created = time_column("created_at", "created")
    data_shown = json_field("data", "data")
    fields = (
        "id",
        "recipient",
        "title",
        "body",
        "action_url",
        "category",
        "data_shown",
        "workflow_key",
        "trigger_id",
        "node_id",
        "created_at",
        "seen_at",
        "read_at",
        "archived_at",
    )
    readonly_fields = fields


def _state_time(value: Any) -> Any:
    return list_time(value) if value is not None else "—"


def recipient_inbox_panel(recipient: Recipient) -> str:
    """The person's in-app messages on their recipient page, newest first (the feed's index),
    with when each was seen, read and archived, and the counts their bell shows."""
    messages = InboxMessage.objects.filter(recipient=recipient.key).order_by("-created_at", "-id")
    rows = [
        (
            format_html(
                '<a href="{}">{}</a>',
                reverse("admin:inbox_inboxmessage_change", args=[message.pk]),
                text_cut(message.title, fill=False),
            ),
            message.category or "—",
            message.workflow_key,
            list_time(message.created_at),
            _state_time(message.seen_at),
            _state_time(message.read_at),
            _state_time(message.archived_at),
        )
        for message in messages[:PANEL_ROWS]
    ]
    counts = inbox_counts(recipient=recipient.key)
    changelist = reverse("admin:inbox_inboxmessage_changelist")
    return recipient_panel(
        title=f"Inbox — {counts.unread} unread, {counts.unseen} unseen of {counts.total}",
        headers=("Message", "Category", "Workflow", "Created", "Seen", "Read", "Archived"),
        rows=rows,
        empty="No in-app message for this recipient.",
        more_url=f"{changelist}?{urlencode({'q': recipient.key})}",
    )
