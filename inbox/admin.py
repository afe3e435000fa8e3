"""A recipient's in-app messages in the admin, read-only (docs/operations.md): search by the
recipient's key, filter by state and category."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from common.admin import ReadOnlyAdminMixin, json_field, time_column
from inbox.models import InboxMessage


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
