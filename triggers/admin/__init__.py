"""Runs in the admin: the trigger list and page (timeline, actions, send test), audit events and
API keys. Logs and events are read-only everywhere."""

from django.contrib import admin

from triggers.admin.api_keys import ApiKeyAdmin
from triggers.admin.readonly import ReadOnlyAdminMixin
from triggers.admin.runs import TriggerInstanceAdmin
from triggers.models import TriggerEvent

__all__ = ["ApiKeyAdmin", "ReadOnlyAdminMixin", "TriggerEventAdmin", "TriggerInstanceAdmin"]


@admin.register(TriggerEvent)
class TriggerEventAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = [
        "trigger",
        "from_status",
        "to_status",
        "node_id",
        "reason",
        "actor",
        "created_at",
    ]
    list_filter = ["to_status"]
    search_fields = ["=trigger__id"]
    show_full_result_count = False
